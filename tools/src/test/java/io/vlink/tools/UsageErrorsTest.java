package io.vlink.tools;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A usage error, in every command, is one line saying what is wrong and a hint where to look, on stderr, exit 2:
 * never the whole usage, never a Java type name.
 */
class UsageErrorsTest
{
    private static void assertUsageError(final String command, final String reason, final String... args)
    {
        final Cli cli = Cli.run(args);
        assertEquals(2, cli.exitCode, cli::toString);
        assertEquals("", cli.out, cli::toString);
        assertEquals(command + ": " + reason + "\nsee '" + command + " --help'\n", cli.err);
    }

    @Test
    void everyCommandSaysWhatIsWrongInOneLineAndWhereToLook()
    {
        assertUsageError("vlink", "missing command");
        assertUsageError("vlink", "unknown command 'frobnicate'; did you mean stat or fabric?", "frobnicate");
        assertUsageError("vlink", "unknown command 'soka'; did you mean soak?", "soka");
        assertUsageError("vlink", "unknown command 'bogus'; the commands are help, stat, sched, inject, arb, qos, " +
            "decode, soak, perf, fabric", "bogus");
        assertUsageError("vlink fabric", "unknown command 'sok'; did you mean soak?", "fabric", "sok");
        assertUsageError("vlink qos", "unknown command 'bogus'; the commands are check, show", "qos", "bogus");
        assertUsageError("vlink soak", "unexpected argument 'extra'", "soak", "extra");
        assertUsageError("vlink soak", "Unknown options: '--secnds', '3'; did you mean --seconds or --seed or --serve?",
            "soak", "--secnds", "3");
        assertUsageError("vlink soak", "Invalid value for option '--seconds': 'abc' is not a number",
            "soak", "--seconds", "abc");
        assertUsageError("vlink stat", "--interval and --liveness must be positive, --count not negative",
            "stat", "--interval", "0");
        assertUsageError("vlink stat", "Invalid value for option '--count': 'x' is not a whole number",
            "stat", "--count", "x");
        assertUsageError("vlink decode", "Missing required parameter: 'FILE'", "decode");
        assertUsageError("vlink arb", "missing command", "arb");
        assertUsageError("vlink arb simulate", "Missing required parameter: 'SCENARIO'", "arb", "simulate");
        assertUsageError("vlink qos", "missing command", "qos");
        assertUsageError("vlink qos show", "Invalid value for option '--cap': 'abc' is not a whole number",
            "qos", "show", "--cap", "abc", "x.conf");
        assertUsageError("vlink qos check", "Invalid value for option '--port-type': expected one of " +
            "[CA, SWE, SW0, RTR, SW2SW] (case-insensitive) but was 'foo'", "qos", "check", "--port-type", "foo", "x");
        assertUsageError("vlink sched", "missing command", "sched");
        assertUsageError("vlink sched simulate", "Missing required parameter: 'SCENARIO'", "sched", "simulate");
        assertUsageError("vlink inject", "missing command", "inject");
        assertUsageError("vlink inject simulate", "Unknown option: '--fast'", "inject", "simulate", "--fast", "x");
        assertUsageError("vlink fabric", "missing command", "fabric");
        assertUsageError("vlink fabric check", "Missing required parameter: 'TOPO'", "fabric", "check");
        assertUsageError("vlink fabric routes", "Invalid value for option '--rate': expected one of [SDR_4X, DDR_4X, " +
            "QDR_4X, FDR10_4X, FDR_4X, EDR_4X, HDR_4X, NDR_4X, XDR_4X] (case-insensitive) but was 'WARP'",
            "fabric", "routes", "--rate", "WARP", "x");
    }

    @Test
    void aPortTypeWithoutAQosFileIsRefused()
    {
        assertUsageError("vlink soak", "--port-type sw0: it picks the qos_<type>_ options of a --qos file; without " +
            "--qos the ports get the default tables, add --qos FILE", "soak", "--port-type", "sw0");
    }
}
