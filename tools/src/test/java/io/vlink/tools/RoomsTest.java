package io.vlink.tools;

import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.Engine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rooms rule (README, "Modules"), checked on the classes that ship (core, nic, tools) with the JDK's own
 * {@code jdeps}, the tool a reader would run:
 * <ul>
 *     <li>no package cycle: the packages' dependencies form a directed acyclic graph;</li>
 *     <li>no knot of more than {@value #MOST_CLASSES_IN_A_KNOT} classes: a knot is a strongly connected component of
 *     the class dependency graph, nested classes counted with the class that holds them;</li>
 *     <li>a {@code package-info.java} per package saying what it owns (its Javadoc is compiled into
 *     {@code package-info.class}).</li>
 * </ul>
 * The same check by hand: {@code jdeps -verbose:class -filter:none core/target/classes nic/target/classes
 * tools/target/classes}.
 */
class RoomsTest
{
    static final int MOST_CLASSES_IN_A_KNOT = 3;
    private static final String PREFIX = "io.vlink.";

    private static List<Path> shipped;
    private static Map<String, Set<String>> classEdges;

    @BeforeAll
    static void runJdeps() throws Exception
    {
        shipped = List.of(location(LrhFlyweight.class), location(Engine.class), location(Vlink.class));
        final ToolProvider jdeps = ToolProvider.findFirst("jdeps")
            .orElseThrow(() -> new AssertionError("this JDK has no jdeps tool"));
        final List<String> args = new ArrayList<>(List.of("-verbose:class", "-filter:none"));
        shipped.forEach(path -> args.add(path.toString()));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            status = jdeps.run(o, e, args.toArray(new String[0]));
        }
        assertEquals(0, status, () -> "jdeps failed: " + err.toString(StandardCharsets.UTF_8));
        classEdges = classEdges(out.toString(StandardCharsets.UTF_8));
        assertTrue(classEdges.size() > 100, () -> "jdeps found only " + classEdges.size() + " classes in " + shipped);
    }

    @Test
    void noPackageCycle()
    {
        final Map<String, Set<String>> packages = new TreeMap<>();
        classEdges.forEach((from, tos) ->
        {
            final Set<String> targets = packages.computeIfAbsent(packageOf(from), k -> new TreeSet<>());
            tos.stream().map(RoomsTest::packageOf).filter(p -> !p.equals(packageOf(from))).forEach(targets::add);
        });
        final List<String> cycles = new ArrayList<>();
        for (final Set<String> component : stronglyConnected(packages))
        {
            if (component.size() > 1)
            {
                cycles.add(component + " through " + crossings(component));
            }
        }
        assertTrue(cycles.isEmpty(), () -> "package cycles:\n" + String.join("\n", cycles));
    }

    @Test
    void noKnotOfMoreThanThreeClasses()
    {
        final List<String> knots = new ArrayList<>();
        for (final Set<String> component : stronglyConnected(classEdges))
        {
            if (component.size() > MOST_CLASSES_IN_A_KNOT)
            {
                knots.add(component.size() + " classes: " + edgesWithin(component));
            }
        }
        assertTrue(knots.isEmpty(), () -> "knots of more than " + MOST_CLASSES_IN_A_KNOT + " classes:\n" +
            String.join("\n", knots));
    }

    @Test
    void everyPackageSaysWhatItOwns() throws Exception
    {
        final Set<String> missing = new TreeSet<>();
        for (final Path root : shipped)
        {
            assertTrue(Files.isDirectory(root), () -> root + " is not a classes directory");
            try (Stream<Path> files = Files.walk(root))
            {
                final Set<Path> dirs = files.filter(f -> f.toString().endsWith(".class"))
                    .map(Path::getParent).collect(Collectors.toSet());
                for (final Path dir : dirs)
                {
                    if (!Files.exists(dir.resolve("package-info.class")))
                    {
                        missing.add(root.relativize(dir).toString().replace('/', '.'));
                    }
                }
            }
        }
        assertTrue(missing.isEmpty(), () -> "packages without a package-info.java (with Javadoc): " + missing);
    }

    @Test
    void theSearchFindsKnotsAndCycles()
    {
        final Map<String, Set<String>> edges = classEdges(String.join("\n",
            "   io.vlink.a.A -> io.vlink.a.B   classes",
            "   io.vlink.a.B$Inner -> io.vlink.b.C   classes",
            "   io.vlink.b.C -> io.vlink.a.A   classes",
            "   io.vlink.b.C -> java.lang.Object   java.base",
            "   io.vlink.b.D -> io.vlink.b.C   classes"));
        assertEquals(Set.of("io.vlink.b.C"), edges.get("io.vlink.a.B"));
        final List<Set<String>> components = stronglyConnected(edges);
        assertTrue(components.contains(Set.of("io.vlink.a.A", "io.vlink.a.B", "io.vlink.b.C")), components::toString);
        assertTrue(components.contains(Set.of("io.vlink.b.D")), components::toString);
        assertEquals(2, components.size(), components::toString);
    }

    /** A class's home: target/classes of its module (the test runs in the reactor, before the jars exist). */
    private static Path location(final Class<?> type) throws URISyntaxException
    {
        final Path path = Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isRegularFile(path))
        {
            // a jar (a build that ran package first): its module's classes are beside it
            final Path classes = path.getParent().resolve("classes");
            return Files.isDirectory(classes) ? classes : path;
        }
        return path;
    }

    /** The dependencies between vlink's classes as jdeps prints them, nested classes folded into their holder. */
    static Map<String, Set<String>> classEdges(final String jdepsOutput)
    {
        final Map<String, Set<String>> edges = new TreeMap<>();
        for (final String line : jdepsOutput.split("\n"))
        {
            final String[] words = line.trim().split("\\s+");
            if (words.length >= 3 && "->".equals(words[1]) && words[0].startsWith(PREFIX))
            {
                final String from = topLevel(words[0]);
                final Set<String> targets = edges.computeIfAbsent(from, k -> new TreeSet<>());
                final String to = topLevel(words[2]);
                if (to.startsWith(PREFIX) && !to.equals(from))
                {
                    targets.add(to);
                }
            }
        }
        return edges;
    }

    private static String topLevel(final String className)
    {
        final int dollar = className.indexOf('$');
        return dollar < 0 ? className : className.substring(0, dollar);
    }

    private static String packageOf(final String className)
    {
        return className.substring(0, className.lastIndexOf('.'));
    }

    private static String crossings(final Set<String> packages)
    {
        return classEdges.entrySet().stream()
            .flatMap(e -> e.getValue().stream()
                .filter(to -> !packageOf(to).equals(packageOf(e.getKey())))
                .filter(to -> packages.contains(packageOf(e.getKey())) && packages.contains(packageOf(to)))
                .map(to -> e.getKey() + " -> " + to))
            .collect(Collectors.joining(", "));
    }

    private static String edgesWithin(final Set<String> component)
    {
        return component.stream()
            .map(from -> from + " -> " + classEdges.getOrDefault(from, Set.of()).stream()
                .filter(component::contains).collect(Collectors.toList()))
            .collect(Collectors.joining("; "));
    }

    /** Tarjan's strongly connected components, iterative (no recursion depth to worry about). */
    static List<Set<String>> stronglyConnected(final Map<String, Set<String>> graph)
    {
        final Set<String> nodes = new TreeSet<>(graph.keySet());
        graph.values().forEach(nodes::addAll);
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new TreeSet<>();
        final List<Set<String>> components = new ArrayList<>();
        int next = 0;
        for (final String start : nodes)
        {
            if (index.containsKey(start))
            {
                continue;
            }
            // each frame: the node and an iterator over its successors
            final Deque<Object[]> frames = new ArrayDeque<>();
            index.put(start, next);
            low.put(start, next++);
            stack.push(start);
            onStack.add(start);
            frames.push(new Object[]{ start, graph.getOrDefault(start, Set.of()).iterator() });
            while (!frames.isEmpty())
            {
                final Object[] frame = frames.peek();
                final String node = (String)frame[0];
                @SuppressWarnings("unchecked")
                final java.util.Iterator<String> successors = (java.util.Iterator<String>)frame[1];
                if (successors.hasNext())
                {
                    final String to = successors.next();
                    if (!index.containsKey(to))
                    {
                        index.put(to, next);
                        low.put(to, next++);
                        stack.push(to);
                        onStack.add(to);
                        frames.push(new Object[]{ to, graph.getOrDefault(to, Set.of()).iterator() });
                    }
                    else if (onStack.contains(to))
                    {
                        low.put(node, Math.min(low.get(node), index.get(to)));
                    }
                    continue;
                }
                frames.pop();
                if (!frames.isEmpty())
                {
                    final String parent = (String)frames.peek()[0];
                    low.put(parent, Math.min(low.get(parent), low.get(node)));
                }
                if (low.get(node).equals(index.get(node)))
                {
                    final Set<String> component = new TreeSet<>();
                    String member;
                    do
                    {
                        member = stack.pop();
                        onStack.remove(member);
                        component.add(member);
                    }
                    while (!member.equals(node));
                    components.add(component);
                }
            }
        }
        return components;
    }
}
