/**
 * The {@code vlink} command ({@link io.vlink.tools.Vlink}) and its subcommands (picocli): {@code stat},
 * {@code decode}, {@code arb}, {@code sched}, {@code inject}, {@code qos}, {@code soak}, {@code perf} and
 * {@code fabric}, with what every command shares: output files opened before any work and written whole
 * ({@link io.vlink.tools.OutputFile}, {@link io.vlink.tools.Outputs}), diagnostics and exit codes (docs/cli.md). The
 * work itself lives in the rooms below: {@code io.vlink.tools.soak}, {@code io.vlink.tools.fabric},
 * {@code io.vlink.tools.perf}, {@code io.vlink.tools.json}, none of which depends on this package.
 */
package io.vlink.tools;
