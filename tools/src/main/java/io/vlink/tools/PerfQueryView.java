package io.vlink.tools;

import io.vlink.core.credit.DiscardReason;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import org.agrona.concurrent.status.CountersReader;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code vlink stat --perfquery}: each port of an engine as {@code perfquery} (infiniband-diags) prints a port's
 * PortCounters, and with {@code --extended} its PortCountersExtended ({@code perfquery -x}), in perfquery's layout
 * (libibmad's: the name, a colon, dots to column 33, the value), with IB's names, units and widths, summed over the
 * port's VLs from the engine's counters file. The mapping of vlink's counters to IB's is docs/engine.md's
 * ("{@code vlink stat --perfquery}"); it is this class's only.
 * <ul>
 *   <li>PortXmitData and PortRcvData are in 4-byte words, as IB counts them: the packets' bytes from the LRH through
 *   the ICRC ({@code tx_bytes}, {@code rx_bytes}: 4 * PktLen) divided by 4. Link (flow-control) packets are not
 *   counted; VL15's are.</li>
 *   <li>PortCounters' fields are as wide as IB makes them and stop at their largest value (they saturate, never wrap):
 *   PortXmitData at 4294967295 words, LinkDownedCounter at 255. PortCountersExtended's are 64 bits.</li>
 *   <li>The capability mask is 0x400: IsExtendedWidthSupportedNoIETF (the four extended data and
 *   packet counters, no unicast and multicast counts) and not PortXmitWait: vlink counts credit stalls as episodes
 *   ({@code credit_stalls}), not ticks of waiting, so PortXmitWait prints 0, as perfquery prints it for a port whose
 *   mask lacks the bit.</li>
 * </ul>
 */
final class PerfQueryView
{
    /** PerfMgt ClassPortInfo.CapabilityMask: bit 10, IsExtendedWidthSupportedNoIETF. */
    static final int CAP_MASK = 1 << 10;
    /** As perfquery prints it ({@code 0x%02X}). */
    static final String CAP_MASK_TEXT = String.format(Locale.ROOT, "0x%02X", CAP_MASK);
    /** libibmad pads a field's name with dots to this many characters, then the colon and the value follow. */
    private static final int NAME_WIDTH = 32;

    /** One port's sums, in vlink's units. */
    static final class Port
    {
        long xmitBytes;
        long rcvBytes;
        long xmitPkts;
        long rcvPkts;
        long rcvErrors;
        long switchRelayErrors;
        long xmitDiscards;
        long vl15Dropped;
        long linkDowned;
        long linkErrorRecovery;
    }

    private PerfQueryView()
    {
    }

    /**
     * @param counters an engine's counters.
     * @return its ports' sums, by port number.
     */
    static Map<Integer, Port> ports(final CountersReader counters)
    {
        final Map<Integer, Port> ports = new TreeMap<>();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final int portNumber = CounterKey.port(keyBuffer);
            final CounterType type = CounterType.ofTypeId(typeId);
            if (CounterKey.NONE == portNumber || null == type)
            {
                return;
            }
            final Port port = ports.computeIfAbsent(portNumber, p -> new Port());
            final long value = counters.getCounterValue(counterId);
            switch (type)
            {
                case TX_BYTES -> port.xmitBytes += value;
                case RX_BYTES -> port.rcvBytes += value;
                case TX_PACKETS -> port.xmitPkts += value;
                case RX_PACKETS -> port.rcvPkts += value;
                case VL15_DROPS -> port.vl15Dropped += value;
                case LINK_DOWNED -> port.linkDowned += value;
                case LINK_ERROR_RECOVERY -> port.linkErrorRecovery += value;
                case TX_FLUSHED_MESSAGES -> port.xmitDiscards += value;
                // frames too short or long for a packet, and frames whose keyed MAC failed (damaged on the way)
                case LINK_LENGTH_DROPS, LINK_MAC_DROPS -> port.rcvErrors += value;
                case DISCARDS -> addDiscards(port, DiscardReason.get(CounterKey.reason(keyBuffer)), value);
                default ->
                {
                    // not one of IB's PortCounters
                }
            }
        });
        return ports;
    }

    /**
     * IB's PortCounters by the reason of a discard: PortRcvErrors counts a received packet with an error (a bad CRC,
     * a malformed data or link packet, a buffer overrun), PortRcvSwitchRelayErrors one the relay could not forward
     * (DLID or VL mapping), PortXmitDiscards one discarded on its way out (head-of-queue lifetime). A packet refused
     * for the link's state, a stale FCP and a full VL15 buffer (VL15Dropped, from {@code vl15_drops}) are in none.
     */
    private static void addDiscards(final Port port, final DiscardReason reason, final long value)
    {
        if (null == reason)
        {
            return; // a reason a newer engine counts
        }
        switch (reason)
        {
            case FCP_RESERVED_OP, FCP_BAD_LPCRC, FCP_VL15, FCP_MISSING_VL, FCP_TOO_SHORT, FCP_TOO_LONG,
                DATA_OVERFLOW, DATA_MISSING_VL, DATA_BAD_CRC -> port.rcvErrors += value;
            case NO_ROUTE, SL2VL_UNMAPPED -> port.switchRelayErrors += value;
            case HOQ_LIFETIME -> port.xmitDiscards += value;
            default ->
            {
                // FCP_STATE, DATA_STATE, VL15_STATE, FCP_STALE, VL15_FULL: not an IB error count
            }
        }
    }

    /**
     * Print each port of an engine as {@code perfquery} prints one.
     *
     * @param engine   the engine's name.
     * @param pid      its process.
     * @param counters its counters.
     * @param extended PortCountersExtended ({@code perfquery -x}) instead of PortCounters.
     * @param out      where to.
     */
    static void print(
        final String engine, final long pid, final CountersReader counters, final boolean extended,
        final PrintWriter out)
    {
        for (final Map.Entry<Integer, Port> entry : ports(counters).entrySet())
        {
            final int number = entry.getKey();
            final Port port = entry.getValue();
            final String where = "engine " + engine + " pid " + pid + " port " + number;
            if (extended)
            {
                out.println("# Port extended counters: " + where + " (CapMask: " + CAP_MASK_TEXT +
                    " CapMask2: 0x0000000)");
                field(out, "PortSelect", Integer.toString(number));
                field(out, "CounterSelect", "0x0000");
                field(out, "PortXmitData", Long.toUnsignedString(port.xmitBytes / 4));
                field(out, "PortRcvData", Long.toUnsignedString(port.rcvBytes / 4));
                field(out, "PortXmitPkts", Long.toUnsignedString(port.xmitPkts));
                field(out, "PortRcvPkts", Long.toUnsignedString(port.rcvPkts));
            }
            else
            {
                out.println("# Port counters: " + where + " (CapMask: " + CAP_MASK_TEXT + ")");
                field(out, "PortSelect", Integer.toString(number));
                field(out, "CounterSelect", "0x0000");
                field(out, "SymbolErrorCounter", 0, 16);
                field(out, "LinkErrorRecoveryCounter", port.linkErrorRecovery, 8);
                field(out, "LinkDownedCounter", port.linkDowned, 8);
                field(out, "PortRcvErrors", port.rcvErrors, 16);
                field(out, "PortRcvRemotePhysicalErrors", 0, 16);
                field(out, "PortRcvSwitchRelayErrors", port.switchRelayErrors, 16);
                field(out, "PortXmitDiscards", port.xmitDiscards, 16);
                field(out, "PortXmitConstraintErrors", 0, 8);
                field(out, "PortRcvConstraintErrors", 0, 8);
                field(out, "CounterSelect2", "0x00");
                field(out, "LocalLinkIntegrityErrors", 0, 4);
                field(out, "ExcessiveBufferOverrunErrors", 0, 4);
                field(out, "QP1Dropped", 0, 16);
                field(out, "VL15Dropped", port.vl15Dropped, 16);
                field(out, "PortXmitData", port.xmitBytes / 4, 32);
                field(out, "PortRcvData", port.rcvBytes / 4, 32);
                field(out, "PortXmitPkts", port.xmitPkts, 32);
                field(out, "PortRcvPkts", port.rcvPkts, 32);
                field(out, "PortXmitWait", 0, 32);
            }
        }
    }

    /**
     * @param value a count.
     * @param bits  the width of IB's field.
     * @return the count as the field holds it: it stops at its largest value.
     */
    static long saturated(final long value, final int bits)
    {
        final long max = (1L << bits) - 1;
        return value < 0 ? 0 : Math.min(value, max);
    }

    private static void field(final PrintWriter out, final String name, final long value, final int bits)
    {
        field(out, name, Long.toString(saturated(value, bits)));
    }

    /** libibmad's form: {@code PortXmitData:....................936}. */
    static void field(final PrintWriter out, final String name, final String value)
    {
        out.println(name + ':' + ".".repeat(Math.max(0, NAME_WIDTH - name.length())) + value);
    }
}
