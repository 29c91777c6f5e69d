package io.vlink.nic.api;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.File;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the API check is made of, as the build has it: the parent pom's version, baseline and announced breaks (the
 * japicmp excludes), the baseline jars in {@code api/}, CHANGELOG.md; and javac over a snippet of user code.
 */
final class ApiFiles
{
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path PARENT_POM = ROOT.resolve("pom.xml");
    static final Path CHANGELOG = ROOT.resolve("CHANGELOG.md");
    static final Path API = ROOT.resolve("api");

    private ApiFiles()
    {
    }

    static Document parentPom() throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        return factory.newDocumentBuilder().parse(PARENT_POM.toFile());
    }

    /** @return the project's version: {@code project/version}. */
    static String projectVersion() throws Exception
    {
        return child(parentPom().getDocumentElement(), "version").getTextContent().trim();
    }

    /** @return the last release's version: {@code vlink.api.baseline}. */
    static String baselineVersion() throws Exception
    {
        final Element properties = child(parentPom().getDocumentElement(), "properties");
        return child(properties, "vlink.api.baseline").getTextContent().trim();
    }

    /** @return the announced breaks: the japicmp plugin's excludes. */
    static List<String> announcedBreaks() throws Exception
    {
        final List<String> excludes = new ArrayList<>();
        final NodeList nodes = parentPom().getElementsByTagName("exclude");
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Element exclude = (Element)nodes.item(i);
            if ("excludes".equals(exclude.getParentNode().getNodeName()) &&
                "parameter".equals(exclude.getParentNode().getParentNode().getNodeName()))
            {
                excludes.add(exclude.getTextContent().trim());
            }
        }
        return excludes;
    }

    static Path baselineJar(final String module) throws Exception
    {
        return API.resolve("vlink-" + module + "-" + baselineVersion() + ".jar");
    }

    /**
     * @param version MAJOR.MINOR.PATCH, perhaps with a qualifier.
     * @return the number a break must raise: the major, or the minor while the major is 0.
     */
    static int breakingNumber(final String version)
    {
        final String[] parts = version.split("[.-]");
        final int major = Integer.parseInt(parts[0]);
        return 0 == major ? 1000 * major + Integer.parseInt(parts[1]) : 1000 * major;
    }

    private static Element child(final Element parent, final String name)
    {
        final NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            if (nodes.item(i) instanceof Element && name.equals(nodes.item(i).getNodeName()))
            {
                return (Element)nodes.item(i);
            }
        }
        throw new AssertionError(PARENT_POM + " has no <" + name + "> in <" + parent.getNodeName() + ">");
    }

    /** The outcome of compiling one source file. */
    record Compiled(boolean ok, String errors)
    {
    }

    /**
     * Compile one class against the given class path, into a temporary directory.
     *
     * @param className  its binary name.
     * @param source     its text.
     * @param classPath  jars and class directories.
     * @param outputDir  where the class files go.
     * @return whether it compiled, and javac's errors.
     */
    static Compiled compile(final String className, final String source, final List<Path> classPath,
        final Path outputDir) throws Exception
    {
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        final JavaFileObject file = new SimpleJavaFileObject(
            URI.create("string:///" + className.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE)
        {
            @Override
            public CharSequence getCharContent(final boolean ignoreEncodingErrors)
            {
                return source;
            }
        };
        Files.createDirectories(outputDir);
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
            StandardCharsets.UTF_8))
        {
            final List<String> options = List.of("--release", "17", "-proc:none", "-d", outputDir.toString(),
                "-classpath", classPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
            final boolean ok = javac.getTask(null, files, diagnostics, options, null, List.of(file)).call();
            final String errors = diagnostics.getDiagnostics().stream()
                .filter(d -> Diagnostic.Kind.ERROR == d.getKind())
                .map(d -> d.getLineNumber() + ": " + d.getMessage(Locale.ROOT))
                .collect(Collectors.joining("\n"));
            return new Compiled(ok, errors);
        }
    }

    /** @return where a class was loaded from: its jar or class directory. */
    static Path origin(final Class<?> type) throws Exception
    {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
