package io.vlink.core.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Valid inputs the fuzz tests of core and tools start their mutations from.
 */
public final class FuzzInputs
{
    private static final String[] OPENSM_RESOURCES = {
        "/opensm/hpcadvisorycouncil-wiki_qos-example.conf",
        "/opensm/mlnx-opensm-5.21_opensm_full.conf",
        "/opensm/nccl-docs_communicators_qos_example.conf",
        "/opensm/opensm-doc_opensm.conf_qos-defaults-ca-swe.conf",
        "/opensm/opensm-doc_opensm.conf_qos-example-highlimit6.conf",
        "/opensm/opensm-doc_qos-config.txt_defaults.conf",
        "/opensm/opensm-doc_qos-config.txt_examples.conf",
        "/opensm/opensm-doc_qos-policy_full-example.conf",
        "/opensm/opensm-doc_qos-policy_shortest-full.conf",
        "/opensm/opensm-doc_qos-policy_shortest-ulps.conf",
        "/opensm/opensm-doc_qos-policy_ulps-example.conf",
        "/opensm/rhel6-opensm-3.3.5_opensm.conf",
        "/opensm/rhel6-opensm-3.3.9_opensm.conf",
        "/qos/damaged.conf"};

    /** The real OpenSM files of the test resources (opensm/ and qos/), as lines. */
    public static final List<List<String>> OPENSM_FILES = opensmFiles();

    /** Valid {@code vlink arb simulate} scenarios: the spec's worked example, and one with every directive. */
    public static final List<List<String>> ARB_SCENARIOS = List.of(
        List.of(
            "# the seed's worked example (spec vl-arbitration.md)",
            "qos_ca_high_limit 4",
            "qos_ca_vlarb_high 6:127,1:63,7:254",
            "qos_ca_vlarb_low 3:2,5:64",
            "data_vls 8",
            "packets 6 4096 10",
            "packets 1 4096 10",
            "packets 7 4096 10",
            "packets 3 4096 10",
            "packets 5 4096 10"),
        List.of(
            "port_type swe",
            "max_op_vls 3",
            "qos_swe_max_vls 4",
            "qos_high_limit 1",
            "qos_vlarb_high 0:4,1:2",
            "qos_vlarb_low 0:64,1:128,2:192,3:255",
            "qos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,15",
            "low_burst packet",
            "packets 0 256 20   # trailing comment",
            "sl_packets 5 2048 7",
            "sl_packets 15 64 3",
            "smp 256 2 before 40",
            "fcp 3 before 5",
            "credits 1 100",
            "grants 500"));

    private FuzzInputs()
    {
    }

    private static List<List<String>> opensmFiles()
    {
        final List<List<String>> all = new ArrayList<>();
        for (final String name : OPENSM_RESOURCES)
        {
            // by resource name, not by listing a directory: from another module the resources are in a jar
            try (InputStream in = FuzzInputs.class.getResourceAsStream(name))
            {
                if (in == null)
                {
                    throw new IllegalStateException(name + " missing from the test class path");
                }
                all.add(List.of(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).split("\\R", -1)));
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        return all;
    }
}
