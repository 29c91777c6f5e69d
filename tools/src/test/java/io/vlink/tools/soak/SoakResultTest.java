package io.vlink.tools.soak;

import io.vlink.tools.Json;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoakResultTest
{
    static SoakResult sample()
    {
        final SoakResult r = new SoakResult();
        r.seconds = 10;
        r.dataVls = 8;
        r.packetSizeMin = 4096;
        r.packetSizeMax = 4096;
        for (int vl = 0; vl < 8; vl++)
        {
            final SoakResult.Vl v = new SoakResult.Vl(vl);
            v.driven = vl != 0 && vl != 4;
            v.sentPackets = v.driven ? 100 * vl : 0;
            v.sentBytes = v.sentPackets * 4096;
            v.receivedPackets = v.sentPackets;
            v.receivedBytes = v.sentBytes;
            v.predictedShare = 0.1;
            v.injectedCells = 2 * v.sentPackets;
            v.classWeight = 3;
            r.vls.add(v);
        }
        r.computeShares();
        r.computeCellShares();
        r.vl15InjectedCells = 42;
        r.vl15ClassWeight = 16;
        r.faultsInjected.put(FaultKind.DROP_DATA, 7L);
        r.faultsDetected.put(FaultKind.DROP_DATA, 7L);
        r.invariants.put("no_loss", true);
        r.invariants.put("fifo", true);
        r.invariants.put("no_overflow", true);
        r.invariants.put("credits_recovered", true);
        return r;
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonHasEveryKeyOfCliMd()
    {
        final Map<String, Object> doc = Json.object(sample().toJson());
        for (final String key : List.of("ok", "seconds", "link", "data_vls", "packet_size", "vls", "vl15", "fcp",
            "faults", "latency_ns", "invariants"))
        {
            assertTrue(doc.containsKey(key), key);
        }
        assertEquals(true, doc.get("ok"));
        assertEquals(4096L, doc.get("packet_size"));
        final Map<String, Object> vl1 = ((List<Map<String, Object>>)doc.get("vls")).get(1);
        for (final String key : List.of("vl", "sent_packets", "sent_bytes", "received_packets", "received_bytes",
            "lost", "out_of_order", "duplicated", "credit_stalls", "share", "injected_cells", "cell_share",
            "class_weight", "weight_share"))
        {
            assertTrue(vl1.containsKey(key), key);
        }
        assertEquals(1L, vl1.get("vl"));
        // shares: VL v carries 100*v packets over VLs 1,2,3,5,6,7 (sum 24)
        assertEquals(Math.round(1 / 24.0 * 10_000) / 10_000.0, (Double)vl1.get("share"), 1e-9);
        assertEquals(Map.of("sent", 0L, "received", 0L, "dropped", 0L, "flushed", 0L, "injected_cells", 42L,
            "class_weight", 16L), doc.get("vl15"));
        assertEquals(Map.of("sent", 0L, "received", 0L, "discarded", 0L), doc.get("fcp"));
        final Map<String, Object> faults = (Map<String, Object>)doc.get("faults");
        assertEquals(Map.of("drop-data", 7L), faults.get("injected"));
        assertEquals(Map.of("drop-data", 7L), faults.get("detected"));
        assertEquals(Map.of("no_loss", true, "fifo", true, "no_overflow", true, "credits_recovered", true),
            doc.get("invariants"));
        assertEquals(Map.of("p50", 0L, "p99", 0L, "p999", 0L, "max", 0L, "warmup_seconds", 0.0, "after_warmup", false,
            "whole_run", Map.of("p50", 0L, "p99", 0L, "p999", 0L, "max", 0L)), doc.get("latency_ns"));
    }

    @Test
    void cellSharesAndWeightSharesAreAmongTheDrivenVls()
    {
        final SoakResult r = sample();
        for (final SoakResult.Vl v : r.vls)
        {
            v.injectedCells = 10L * v.vl;
            v.classWeight = v.vl;
        }
        r.computeCellShares();
        // driven: VLs 1, 2, 3, 5, 6, 7 (sum 24 of both)
        assertEquals(2 / 24.0, r.vl(2).cellShare, 1e-12);
        assertEquals(2 / 24.0, r.vl(2).weightShare, 1e-12);
        assertTrue(Double.isNaN(r.vl(4).weightShare), "not driven");
        assertEquals(0.0, r.maxCellShareError, 1e-12);
        r.vl(7).injectedCells = 94;
        r.computeCellShares();
        assertEquals(94 / 264.0, r.vl(7).cellShare, 1e-12);
        assertEquals(94 / 264.0 - 7 / 24.0, r.maxCellShareError, 1e-12);
    }

    @Test
    void okIsTheAndOfTheInvariants()
    {
        final SoakResult r = sample();
        assertTrue(r.ok());
        r.invariants.put("fifo", false);
        assertFalse(r.ok());
        assertEquals(false, Json.object(r.toJson()).get("ok"));
        assertFalse(new SoakResult().ok(), "nothing checked is not ok");
    }

    @Test
    void aSizeRangeIsWrittenAsARange()
    {
        final SoakResult r = sample();
        r.packetSizeMin = 64;
        final Map<String, Object> doc = Json.object(r.toJson());
        assertNull(doc.get("packet_size"));
        assertEquals(Map.of("min", 64L, "max", 4096L), doc.get("packet_sizes"));
    }
}
