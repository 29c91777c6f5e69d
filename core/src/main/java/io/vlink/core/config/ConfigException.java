package io.vlink.core.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A configuration or scenario that cannot be applied. Carries every finding (errors and the warnings
 * seen with them), so a user fixes a file in one pass rather than one error per run. Nothing of a
 * refused configuration is applied.
 */
public class ConfigException extends RuntimeException
{
    private final List<Diagnostic> diagnostics;

    public ConfigException(final List<Diagnostic> diagnostics)
    {
        super(diagnostics.stream().map(Diagnostic::toString).collect(Collectors.joining(System.lineSeparator())));
        this.diagnostics = List.copyOf(diagnostics);
    }

    public ConfigException(final Diagnostic diagnostic)
    {
        this(List.of(diagnostic));
    }

    public List<Diagnostic> diagnostics()
    {
        return diagnostics;
    }
}
