package io.vlink.core.credit;

import org.agrona.UnsafeApi;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole mutable state of an object graph as a {@code long[]}, found by reflection, read and written back through field offsets: every
 * non-final primitive field, the contents of every primitive array (final or not), every enum field (its ordinal),
 * and the same of every object reached through a field whose class lives in a package under {@code io.vlink}.
 * Final primitives are constants and left out; any other reference (a listener, a lambda) is left alone. The
 * model checker ({@link LinkTrainingCheck}) uses it to save a state, try every event from it and restore it, and to
 * fingerprint a state: the classes the engine ships are checked as they are, with no accessor added for the checker.
 * <p>
 * Each slot has a path ({@code CreditControl#0.lastHeardNs}, {@code FcpSchedule#0.dueNs[1]}) so a caller can find a
 * field's slots and normalise them (a clock reading relative to now, a count left out of the fingerprint). A field
 * the codec cannot save (a non-final reference to an object) is refused at construction: a state it would miss.
 */
final class StateCodec
{
    private static final int PRIMITIVE = 0;
    private static final int PRIMITIVE_ARRAY = 1;
    private static final int ENUM = 2;

    private final List<Slot> slots = new ArrayList<>();
    private final List<String> paths = new ArrayList<>();
    private final int length;

    private record Slot(Object owner, Field field, int kind, int arrayLength)
    {
    }

    /**
     * @param root the object graph's root.
     */
    StateCodec(final Object root)
    {
        walk(root, new IdentityHashMap<>(), new IdentityHashMap<>());
        int n = 0;
        for (final Slot slot : slots)
        {
            n += slot.kind == PRIMITIVE_ARRAY ? slot.arrayLength : 1;
        }
        length = n;
        flatten();
        byType();
    }

    int length()
    {
        return length;
    }

    /**
     * @param path a field's path as {@link #paths()} lists it, without an index.
     * @return the index of its first slot, or -1.
     */
    int slot(final String path)
    {
        for (int i = 0; i < paths.size(); i++)
        {
            final String p = paths.get(i);
            if (p.equals(path) || p.equals(path + "[0]"))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return every slot's path, in slot order.
     */
    List<String> paths()
    {
        return paths;
    }

    private void walk(final Object object, final Map<Object, Boolean> seen, final Map<Class<?>, Integer> counts)
    {
        if (null != seen.put(object, Boolean.TRUE))
        {
            return;
        }
        final int instance = counts.merge(object.getClass(), 1, Integer::sum) - 1;
        final String prefix = object.getClass().getSimpleName() + "#" + instance + ".";
        for (final Field field : fields(object.getClass()))
        {
            final Class<?> type = field.getType();
            final boolean isFinal = Modifier.isFinal(field.getModifiers());
            final Object value = get(field, object);
            if (null == value && !type.isPrimitive())
            {
                // not yet set while the graph is walked (the codec's own owner's fields): not state
                continue;
            }
            if (type.isPrimitive())
            {
                if (!isFinal)
                {
                    add(new Slot(object, field, PRIMITIVE, 0), prefix + field.getName());
                }
            }
            else if (type.isArray() && type.getComponentType().isPrimitive())
            {
                final int n = java.lang.reflect.Array.getLength(value);
                add(new Slot(object, field, PRIMITIVE_ARRAY, n), null);
                for (int i = 0; i < n; i++)
                {
                    paths.add(prefix + field.getName() + "[" + i + "]");
                }
            }
            else if (type.isEnum())
            {
                add(new Slot(object, field, ENUM, 0), prefix + field.getName());
            }
            else if (null != value && value.getClass().getName().startsWith("io.vlink.") &&
                !value.getClass().isSynthetic() && !value.getClass().getName().contains("$$Lambda"))
            {
                if (!isFinal)
                {
                    throw new IllegalArgumentException(prefix + field.getName() +
                        ": a non-final reference; the codec saves the contents of objects, not which object");
                }
                walk(value, seen, counts);
            }
        }
    }

    private void add(final Slot slot, final String path)
    {
        slots.add(slot);
        if (null != path)
        {
            paths.add(path);
        }
    }

    private static List<Field> fields(final Class<?> type)
    {
        final List<Field> fields = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass())
        {
            for (final Field field : c.getDeclaredFields())
            {
                if (!Modifier.isStatic(field.getModifiers()) && !field.isSynthetic())
                {
                    field.setAccessible(true);
                    fields.add(field);
                }
            }
        }
        fields.sort(Comparator.comparing((Field f) -> f.getDeclaringClass().getName()).thenComparing(Field::getName));
        return fields;
    }

    private static Object get(final Field field, final Object owner)
    {
        try
        {
            return field.get(owner);
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private Object[] owners;
    private long[] offsets;
    private byte[] types;
    private Object[][] constants;
    private static final byte INT = 0;
    private static final byte LONG = 1;
    private static final byte BOOLEAN = 2;
    private static final byte ENUM_REF = 3;

    /** The slots flattened for the Unsafe accessors: an owner (an object or an array) and an offset each. */
    private void flatten()
    {
        owners = new Object[length];
        offsets = new long[length];
        types = new byte[length];
        constants = new Object[length][];
        int i = 0;
        for (final Slot slot : slots)
        {
            final Field field = slot.field;
            if (slot.kind == PRIMITIVE_ARRAY)
            {
                final Object array = get(field, slot.owner);
                final Class<?> component = array.getClass().getComponentType();
                final byte type = component == int.class ? INT : component == long.class ? LONG : BOOLEAN;
                final long base = UnsafeApi.arrayBaseOffset(array.getClass());
                final long scale = UnsafeApi.arrayIndexScale(array.getClass());
                for (int k = 0; k < slot.arrayLength; k++, i++)
                {
                    owners[i] = array;
                    offsets[i] = base + k * scale;
                    types[i] = type;
                }
                continue;
            }
            owners[i] = slot.owner;
            offsets[i] = UnsafeApi.objectFieldOffset(field);
            if (slot.kind == ENUM)
            {
                types[i] = ENUM_REF;
                constants[i] = field.getType().getEnumConstants();
            }
            else
            {
                final Class<?> type = field.getType();
                if (type == int.class)
                {
                    types[i] = INT;
                }
                else if (type == long.class)
                {
                    types[i] = LONG;
                }
                else if (type == boolean.class)
                {
                    types[i] = BOOLEAN;
                }
                else
                {
                    throw new IllegalArgumentException(field + ": only int, long, boolean and enum fields are saved");
                }
            }
            i++;
        }
    }

    // the slots by type, each a run of (owner, offset, index into the state)
    private Object[] intOwner;
    private long[] intOffset;
    private int[] intIndex;
    private Object[] otherOwner;
    private long[] otherOffset;
    private int[] otherIndex;

    private void byType()
    {
        int ints = 0;
        for (final byte type : types)
        {
            ints += type == INT ? 1 : 0;
        }
        intOwner = new Object[ints];
        intOffset = new long[ints];
        intIndex = new int[ints];
        otherOwner = new Object[length - ints];
        otherOffset = new long[length - ints];
        otherIndex = new int[length - ints];
        int i = 0;
        int o = 0;
        for (int k = 0; k < length; k++)
        {
            if (types[k] == INT)
            {
                intOwner[i] = owners[k];
                intOffset[i] = offsets[k];
                intIndex[i++] = k;
            }
            else
            {
                otherOwner[o] = owners[k];
                otherOffset[o] = offsets[k];
                otherIndex[o++] = k;
            }
        }
    }

    /**
     * @param into {@link #length()} longs: the state now.
     */
    void save(final long[] into)
    {
        final Object[] owner = intOwner;
        final long[] offset = intOffset;
        final int[] index = intIndex;
        for (int i = 0; i < index.length; i++)
        {
            into[index[i]] = UnsafeApi.getInt(owner[i], offset[i]);
        }
        for (int o = 0; o < otherIndex.length; o++)
        {
            final int k = otherIndex[o];
            final Object other = otherOwner[o];
            final long at = otherOffset[o];
            switch (types[k])
            {
                case LONG -> into[k] = UnsafeApi.getLong(other, at);
                case BOOLEAN -> into[k] = UnsafeApi.getBoolean(other, at) ? 1 : 0;
                default ->
                {
                    final Enum<?> e = (Enum<?>)UnsafeApi.getReference(other, at);
                    into[k] = null == e ? -1 : e.ordinal();
                }
            }
        }
    }

    /**
     * @param from a state {@link #save} wrote: the graph is put back exactly as it was.
     */
    void restore(final long[] from)
    {
        final Object[] owner = intOwner;
        final long[] offset = intOffset;
        final int[] index = intIndex;
        for (int i = 0; i < index.length; i++)
        {
            UnsafeApi.putInt(owner[i], offset[i], (int)from[index[i]]);
        }
        for (int o = 0; o < otherIndex.length; o++)
        {
            final int k = otherIndex[o];
            final Object other = otherOwner[o];
            final long at = otherOffset[o];
            final long v = from[k];
            switch (types[k])
            {
                case LONG -> UnsafeApi.putLong(other, at, v);
                case BOOLEAN -> UnsafeApi.putBoolean(other, at, v != 0);
                default -> UnsafeApi.putReference(other, at, v < 0 ? null : constants[k][(int)v]);
            }
        }
    }

    @Override
    public String toString()
    {
        return "StateCodec" + Arrays.toString(paths.toArray());
    }
}
