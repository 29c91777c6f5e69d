package io.vlink.tools.soak;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HtmlReportTest
{
    @Test
    void aSelfContainedPageWithWellFormedCharts() throws Exception
    {
        final SoakResult result = SoakResultTest.sample();
        final SoakTimeline timeline = new SoakTimeline(8);
        for (int s = 0; s < 10; s++)
        {
            final long[] bytes = new long[8];
            final long[] stalls = new long[8];
            for (int vl = 1; vl < 8; vl++)
            {
                bytes[vl] = vl * 1_000_000L + s;
                stalls[vl] = s % 3;
            }
            timeline.addSecond(bytes, stalls, 20_000 + s);
        }
        final Histogram latency = new Histogram(1, 10_000_000_000L, 3);
        for (int i = 1; i <= 10_000; i++)
        {
            latency.recordValue(i * 10L);
        }

        final String html = HtmlReport.render(result, timeline, latency);

        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("vlink soak: <span class=\"ok\">ok"));
        assertFalse(html.contains("<script"), "no script");
        assertFalse(html.matches("(?s).*(src|href)=.*"), "nothing fetched");
        final Matcher svg = Pattern.compile("(?s)<svg .*?</svg>").matcher(html);
        int charts = 0;
        while (svg.find())
        {
            final Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.group().getBytes(StandardCharsets.UTF_8)));
            assertEquals("svg", doc.getDocumentElement().getTagName());
            charts++;
        }
        assertEquals(5, charts);
        // VL0 and VL4 are not driven: no legend entry, but a table row that says so
        assertFalse(html.contains(">VL0</text>"));
        assertTrue(html.contains(">VL3</text>"));
        assertTrue(html.contains("<td>4 (not driven)</td>"));
        assertTrue(html.contains("drop-data"));
    }

    @Test
    void aFailedRunSaysSoAndWhy()
    {
        final SoakResult result = SoakResultTest.sample();
        result.invariants.put("no_loss", false);
        result.violations.add("VL3 lost 2 packets <seq 10, 11>");
        final String html = HtmlReport.render(result, new SoakTimeline(8), new Histogram(3));
        assertTrue(html.contains("FAILED"));
        assertTrue(html.contains("BROKEN"));
        assertTrue(html.contains("VL3 lost 2 packets &lt;seq 10, 11&gt;"), "text is escaped");
        assertTrue(html.contains("No latencies were recorded."));
    }

    @Test
    void niceCeilings()
    {
        assertEquals(1, HtmlReport.niceCeiling(0));
        assertEquals(1, HtmlReport.niceCeiling(0.9));
        assertEquals(2, HtmlReport.niceCeiling(1.5));
        assertEquals(50, HtmlReport.niceCeiling(31));
        assertEquals(100, HtmlReport.niceCeiling(100));
        assertEquals(0.2, HtmlReport.niceCeiling(0.13), 1e-12);
    }
}
