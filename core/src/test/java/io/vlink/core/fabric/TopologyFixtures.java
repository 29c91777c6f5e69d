package io.vlink.core.fabric;

import io.vlink.core.config.Result;
import io.vlink.core.credit.LineRate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

final class TopologyFixtures
{
    /** ibsim's sample topologies, copied verbatim (see resources/topology/ORIGINS.md). */
    static final String[] SAMPLES = {"net", "net.1", "net.2sw2path", "net.2sw2path4hca", "net.2sw2path4hca2port"};

    private TopologyFixtures()
    {
    }

    static String text(final String name)
    {
        return resource("/topology/" + name);
    }

    /**
     * @param path a file under the real OpenSM 3.3.23 outputs, e.g. {@code net.2sw2path4hca/minhop/opensm-lfts.dump}.
     * @return its text.
     */
    static String opensm(final String path)
    {
        return resource("/opensm-3.3.23/" + path);
    }

    private static String resource(final String path)
    {
        try (InputStream in = TopologyFixtures.class.getResourceAsStream(path))
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static Topology sample(final String name)
    {
        return TopologyReader.parse(name, text(name), LineRate.EDR_4X).orThrow();
    }

    static Topology sample(final String name, final int lmc)
    {
        return TopologyReader.parse(name, text(name), LineRate.EDR_4X, lmc).orThrow();
    }

    static Result<Topology> parse(final String text)
    {
        return TopologyReader.parse("topo", text, LineRate.EDR_4X);
    }
}
