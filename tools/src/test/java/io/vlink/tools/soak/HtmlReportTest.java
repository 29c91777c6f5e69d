package io.vlink.tools.soak;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
        // cells per buffer class against the weight share, driven VLs only (VL3: 600 of 4,800 cells, 1 of 6 weights)
        assertTrue(html.contains("<h2>Cells per buffer class</h2>"));
        assertTrue(html.contains("<tr><td>3</td><td>600</td><td>0.1250</td><td>3</td><td>0.1667</td><td>0.750</td></tr>"),
            html);
        assertFalse(html.contains("<tr><td>4</td><td>0</td>"));
        assertTrue(html.contains("<tr><td>15</td><td>42</td><td></td><td>16</td>"));
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
    void axesInWholeSecondsAndReadableTimeUnits()
    {
        final SoakTimeline timeline = new SoakTimeline(8);
        for (int s = 0; s < 30; s++)
        {
            timeline.addSecond(new long[8], new long[8], 250_000_000L);
        }
        final Histogram latency = new Histogram(1, 10_000_000_000L, 3);
        latency.recordValue(400_000_000L);
        final String html = HtmlReport.render(SoakResultTest.sample(), timeline, latency);
        assertFalse(html.matches("(?s).*text-anchor=\"middle\">\\d+\\.\\d+</text>.*"), "no fractional seconds");
        assertTrue(html.contains("text-anchor=\"middle\">28</text>"), "a tick every 3 s up to 30");
        assertTrue(html.contains(">ms</text>"), "hundreds of ms are shown in ms");
        assertEquals(1e3, HtmlReport.timeScale(9_999_999));
        assertEquals("s", HtmlReport.timeUnit(HtmlReport.timeScale(2e10)));
    }

    @Test
    void smallVlsAreVisibleAndEachShareIsShownAgainstItsPrediction()
    {
        final SoakResult result = SoakResultTest.sample();
        final SoakTimeline timeline = new SoakTimeline(8);
        for (int s = 0; s < 5; s++)
        {
            final long[] bytes = new long[8];
            bytes[0] = 800_000_000L;
            bytes[1] = 2_000_000L;
            timeline.addSecond(bytes, new long[8], 5_000);
        }
        final Histogram latency = new Histogram(1, 10_000_000_000L, 3);
        latency.recordValue(900);
        final String html = HtmlReport.render(result, timeline, latency, latency);
        // a logarithmic axis: decades from 1 MB/s (a decade below VL1's 2) up to 1000
        assertTrue(html.contains(">1</text>") && html.contains(">10</text>") && html.contains(">1000</text>"), html);
        // one panel per driven VL, titled with its measured and predicted share
        for (final SoakResult.Vl v : result.vls)
        {
            assertEquals(v.driven, html.contains(String.format(java.util.Locale.ROOT,
                ">VL%d</text><text x=\"", v.vl)), "VL" + v.vl);
        }
        assertTrue(html.contains("measured 0."), html);
        assertTrue(html.contains("<th>destroyed by faults</th><th>damaged</th>"), html);
        assertTrue(html.contains(">ns</text>"), "latencies below 10 us are drawn in ns");
        assertTrue(html.contains(">after 0.0 s</text>"), "the steady state beside the whole run");
        assertEquals("ns", HtmlReport.timeUnit(HtmlReport.timeScale(9_999)));
    }

    @Test
    void everyVlHasAPanelInEveryPerVlChartThePredictionStepsAtEachRetableAndEveryTimeAxisMarksTheFaults()
    {
        final SoakResult result = SoakResultTest.sample();
        final SoakTimeline timeline = new SoakTimeline(8);
        for (int s = 0; s < 12; s++)
        {
            final long[] bytes = new long[8];
            for (int vl = 1; vl < 8; vl++)
            {
                bytes[vl] = 5_000_000L; // VLs with equal throughput: each must still be seen
            }
            timeline.addSecond(bytes, new long[8], 5_000);
        }
        final double[] configured = {Double.NaN, 0.1, 0.2, 0.3, Double.NaN, 0.1, 0.2, 0.1};
        final double[] variant = {Double.NaN, 0.3, 0.2, 0.1, Double.NaN, 0.2, 0.1, 0.1};
        timeline.addPhase(0, configured);
        timeline.addPhase(4.0, variant);
        timeline.addPhase(8.0, configured);
        timeline.addFault(FaultKind.VL15_FLOOD, 250_000_000L);
        timeline.addFault(FaultKind.RETABLE, 4_000_000_000L);
        timeline.addFault(FaultKind.LINK_BOUNCE, 6_000_000_000L);
        timeline.addFault(FaultKind.RETABLE, 8_000_000_000L);
        timeline.addFault(FaultKind.VL15_FLOOD, 1_250_000_000L);
        final String html = HtmlReport.render(result, timeline, new Histogram(3));

        final List<ReportData.TimeAxis> axes = ReportData.timeAxes(html);
        final List<Integer> driven = new ArrayList<>();
        for (final SoakResult.Vl v : result.vls)
        {
            if (v.driven)
            {
                driven.add(v.vl);
            }
        }
        for (final String chart : List.of("throughput", "share", "stalls"))
        {
            assertEquals(driven, axes.stream().filter(a -> chart.equals(a.chart)).map(a -> a.vl).toList(),
                "one panel per driven VL in " + chart);
        }
        assertEquals(1, axes.stream().filter(a -> "p99".equals(a.chart)).count());
        for (final ReportData.TimeAxis axis : axes)
        {
            final String where = axis.chart + " VL" + axis.vl;
            assertEquals(List.of(4.0, 8.0), axis.faults.get("retable"), where);
            assertEquals(List.of(6.0), axis.faults.get("link-bounce"), where);
            assertEquals(List.of(0.25, 1.25), axis.faults.get("vl15-flood"), where);
            if ("share".equals(axis.chart))
            {
                assertEquals(3, axis.steps.size(), where);
                for (int i = 0; i < 3; i++)
                {
                    assertEquals(new double[] {0, 4, 8}[i], axis.steps.get(i)[0], 1e-9, where);
                    assertEquals((1 == i ? variant : configured)[axis.vl], axis.steps.get(i)[1], 1e-4, where);
                }
            }
            else
            {
                assertTrue(axis.steps.isEmpty(), where);
            }
        }
        assertTrue(html.contains("Faults on every time axis:"), html);
    }

    @Test
    void withoutPhasesThePredictionIsTheRunsOwnFromTheStartAndNoFaultIsMarked()
    {
        final SoakResult result = SoakResultTest.sample();
        final SoakTimeline timeline = new SoakTimeline(8);
        timeline.addSecond(new long[8], new long[8], 0);
        final List<ReportData.TimeAxis> axes = ReportData.timeAxes(HtmlReport.render(result, timeline,
            new Histogram(3)));
        for (final ReportData.TimeAxis axis : axes)
        {
            assertTrue(axis.faults.isEmpty());
            if ("share".equals(axis.chart))
            {
                final SoakResult.Vl v = result.vls.stream().filter(x -> x.vl == axis.vl).findFirst().orElseThrow();
                assertEquals(Double.isNaN(v.predictedShare) ? 0 : 1, axis.steps.size());
            }
        }
    }

    @Test
    void aFaultWithNothingToDetectShowsADash()
    {
        final SoakResult result = SoakResultTest.sample();
        result.faultsInjected.put(FaultKind.DROP_FCP, 12L);
        final String html = HtmlReport.render(result, new SoakTimeline(8), new Histogram(3));
        assertTrue(html.contains("<td class=\"l\">drop-fcp</td><td>12</td><td>-</td>"), html);
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
