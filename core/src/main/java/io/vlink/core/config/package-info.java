/**
 * What every reader of a text file shares: lines and words with their positions
 * ({@link io.vlink.core.config.TextLines}, {@link io.vlink.core.config.Words}) and the {@code file:line:column}
 * diagnostics a mistake is refused with ({@link io.vlink.core.config.Diagnostic},
 * {@link io.vlink.core.config.ConfigException}). Depends on nothing of vlink's.
 */
package io.vlink.core.config;
