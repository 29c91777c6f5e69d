package io.vlink.core.fuzz;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Lets a long fuzzing campaign override the tries and the seed the fuzz properties declare for CI:
 * {@code -Dvlink.fuzz.tries=100000} runs every fuzz property that many times, {@code -Dvlink.fuzz.seed=42} starts
 * it from another fixed seed. Without them each property runs as annotated (a fixed seed, a few hundred tries).
 */
public final class FuzzTries implements AroundPropertyHook
{
    /** System property: tries per fuzz property. */
    public static final String TRIES_PROPERTY = "vlink.fuzz.tries";
    /** System property: the seed every fuzz property starts from. */
    public static final String SEED_PROPERTY = "vlink.fuzz.seed";

    @Override
    public PropertyExecutionResult aroundProperty(
        final PropertyLifecycleContext context, final PropertyExecutor property)
    {
        final String tries = System.getProperty(TRIES_PROPERTY);
        if (tries != null && !tries.isBlank())
        {
            context.attributes().setTries(Integer.parseInt(tries.trim()));
        }
        final String seed = System.getProperty(SEED_PROPERTY);
        if (seed != null && !seed.isBlank())
        {
            context.attributes().setSeed(seed.trim());
        }
        return property.execute();
    }

    /**
     * @return the properties of the class it is added to ({@code @AddLifecycleHook(FuzzTries.class)}).
     */
    @Override
    public PropagationMode propagateTo()
    {
        return PropagationMode.DIRECT_DESCENDANTS;
    }

    /**
     * @return outermost, so that the attributes are changed before jqwik reads them to start the property.
     */
    @Override
    public int aroundPropertyProximity()
    {
        return -100;
    }
}
