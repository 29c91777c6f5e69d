package io.vlink.tools.soak;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;

/**
 * {@code vlink soak --report FILE.html}: one self-contained page (inline SVG and CSS, no script, nothing
 * fetched) for people who would rather look than read: per-VL throughput over time, one panel per VL on one
 * logarithmic axis (a VL with a fiftieth of the bytes is as visible as the one with most, and VLs with equal
 * throughput no longer hide each other's lines), each VL's share of the bytes in a panel of its own against the share
 * the tables in force predict (a step at each table replacement), latency by percentile (after the warm-up and the
 * whole run), latency p99 over time, credit stalls per VL over time, and the summary table with every invariant.
 * Every time axis carries the timed faults where they happened. Times are in the unit that fits.
 * <p>
 * What is drawn is also in the page as data, for tools and tests: each per-VL panel is a {@code <g class="panel"
 * data-chart="..." data-vl="N">}, each prediction a {@code <path class="predicted" data-steps="FROM:SHARE ...">}, and
 * each kind of fault on an axis a {@code <path class="fault" data-kind="KIND" data-times="SECONDS ...">}.
 */
public final class HtmlReport
{
    private static final String[] COLOURS = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
        "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"};
    private static final double[] PERCENTILES = {
        0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 95, 97, 99, 99.5, 99.7, 99.9, 99.95, 99.99, 99.999, 100};
    private static final int WIDTH = 760;
    private static final int HEIGHT = 280;
    private static final int LEFT = 70;
    private static final int RIGHT = 130;
    private static final int TOP = 34;
    private static final int BOTTOM = 44;
    /** The logarithmic axis spans at most this many decades below its top. */
    private static final int LOG_DECADES = 5;
    private static final int PANELS_PER_ROW = 3;
    private static final int PANEL_W = WIDTH / PANELS_PER_ROW;
    private static final int PANEL_H = 150;

    private HtmlReport()
    {
    }

    /**
     * @param result   the run's figures.
     * @param timeline what each second saw.
     * @param latency  every latency recorded (may be empty).
     * @return the page.
     */
    public static String render(final SoakResult result, final SoakTimeline timeline, final Histogram latency)
    {
        return render(result, timeline, latency, null);
    }

    /**
     * @param result   the run's figures.
     * @param timeline what each second saw.
     * @param latency  every latency recorded (may be empty).
     * @param steady   the latencies after the warm-up (null or empty: not drawn).
     * @return the page.
     */
    public static String render(
        final SoakResult result, final SoakTimeline timeline, final Histogram latency, final Histogram steady)
    {
        final StringBuilder html = new StringBuilder(64 * 1024);
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
            .append("<title>vlink soak: ").append(result.ok() ? "ok" : "FAILED").append("</title>\n")
            .append("<style>\n")
            .append("body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}\n")
            .append("h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px}\n")
            .append(".ok{color:#1a7f37;font-weight:bold}.bad{color:#c62828;font-weight:bold}\n")
            .append("table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;")
            .append("text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}\n")
            .append("svg{background:#fff;border:1px solid #ddd;margin:6px 0}\n")
            .append("svg text{font:11px system-ui,sans-serif;fill:#333}\n")
            .append(".note{color:#555}\n</style></head><body>\n");

        html.append("<h1>vlink soak: <span class=\"").append(result.ok() ? "ok\">ok" : "bad\">FAILED")
            .append("</span></h1>\n<p class=\"note\">")
            .append(esc(String.format(Locale.ROOT, "%.1f s, link %s, threads %s, idle %s, %d data VLs, packets %s, " +
                "seed %d%s", result.seconds, result.link, result.threads, result.idle, result.dataVls,
                result.packetSizeMin == result.packetSizeMax ? result.packetSizeMin + " B" :
                result.packetSizeMin + "-" + result.packetSizeMax + " B",
                result.seed, result.faultSpec.isEmpty() ? "" : ", faults " + result.faultSpec)))
            .append("</p>\n");

        invariants(html, result);
        vlTable(html, result);

        final int seconds = timeline.seconds();
        final int vls = timeline.dataVls();
        final double[][] throughput = new double[vls][seconds];
        final double[][] share = new double[vls][seconds];
        final double[][] stalls = new double[vls][seconds];
        final double[][] p99 = new double[1][seconds];
        for (int s = 0; s < seconds; s++)
        {
            final long total = timeline.totalBytes(s);
            for (int vl = 0; vl < vls; vl++)
            {
                throughput[vl][s] = timeline.bytes(s, vl) / 1e6;
                share[vl][s] = total == 0 ? 0 : (double)timeline.bytes(s, vl) / total;
                stalls[vl][s] = timeline.stalls(s, vl);
            }
            p99[0][s] = timeline.p99Ns(s);
        }

        final String[] names = new String[vls];
        final double[] predicted = new double[vls];
        final boolean[] show = new boolean[vls];
        for (int vl = 0; vl < vls; vl++)
        {
            names[vl] = "VL" + vl;
            predicted[vl] = Double.NaN;
        }
        for (final SoakResult.Vl v : result.vls)
        {
            if (v.vl < vls)
            {
                predicted[v.vl] = v.predictedShare;
                show[v.vl] = v.driven;
            }
        }

        final Markers markers = new Markers(timeline.faults(), seconds);
        html.append(markers.legend());
        html.append("<h2>Throughput per VL</h2>\n")
            .append("<p class=\"note\">MB/s delivered each second, one panel per VL on one logarithmic axis ")
            .append("(every tenfold is one band), so that a VL with a small share reads as well as the largest and ")
            .append("VLs with the same throughput do not hide each other.</p>\n");
        html.append(panels("throughput", names, throughput, show, null, logAxis(throughput, show), null, markers,
            "MB/s", null));
        html.append("<h2>Share of bytes per VL: measured each second (solid) against the prediction (dashed)</h2>\n")
            .append("<p class=\"note\">One panel per VL, each on its own scale. The prediction is that of the ")
            .append("arbitration tables in force: it steps where a retable replaced them.</p>\n");
        final Axis[] shareAxes = new Axis[vls];
        final String[] shareTitles = new String[vls];
        final double[][] steps = predictionSteps(timeline, predicted);
        for (int vl = 0; vl < vls; vl++)
        {
            double max = 0;
            for (int i = 1; i < steps[vl].length; i += 2)
            {
                max = Double.isNaN(steps[vl][i]) ? max : Math.max(max, steps[vl][i]);
            }
            for (final double y : share[vl])
            {
                max = Math.max(max, y);
            }
            shareAxes[vl] = linearAxis(max * 1.15);
            shareTitles[vl] = String.format(Locale.ROOT, "measured %.4f, predicted %s", vlShare(result, vl),
                Double.isNaN(predicted[vl]) ? "-" : String.format(Locale.ROOT, "%.4f", predicted[vl]));
        }
        html.append(panels("share", names, share, show, shareTitles, null, shareAxes, markers, null, steps));
        html.append("<h2>Latency by percentile</h2>\n");
        html.append(percentileChart(latency, steady, result.warmupSeconds));
        html.append("<h2>Latency p99 per second</h2>\n");
        double p99Max = 0;
        for (final double v : p99[0])
        {
            p99Max = Math.max(p99Max, v);
        }
        final double p99Scale = timeScale(p99Max);
        for (int s = 0; s < seconds; s++)
        {
            p99[0][s] /= p99Scale;
        }
        html.append(lineChart("p99 of the packets delivered in each second", "second", timeUnit(p99Scale),
            new String[] {"p99"}, p99, new boolean[] {true}, markers));
        html.append("<h2>Credit stalls per second</h2>\n")
            .append("<p class=\"note\">Times a VL with a packet waited for credits, one panel per VL on one ")
            .append("scale.</p>\n");
        double stallMax = 0;
        for (int vl = 0; vl < vls; vl++)
        {
            for (final double y : show[vl] ? stalls[vl] : new double[0])
            {
                stallMax = Math.max(stallMax, y);
            }
        }
        html.append(panels("stalls", names, stalls, show, null, linearAxis(stallMax), null, markers, "stalls", null));
        faultsTable(html, result);
        html.append("</body></html>\n");
        return html.toString();
    }

    private static void invariants(final StringBuilder html, final SoakResult result)
    {
        html.append("<h2>Invariants</h2>\n<table><tr>");
        for (final String name : result.invariants.keySet())
        {
            html.append("<th>").append(esc(name)).append("</th>");
        }
        html.append("</tr><tr>");
        for (final Map.Entry<String, Boolean> e : result.invariants.entrySet())
        {
            html.append("<td class=\"").append(e.getValue() ? "ok\">held" : "bad\">BROKEN").append("</td>");
        }
        html.append("</tr></table>\n");
        if (!result.violations.isEmpty())
        {
            html.append("<ul>");
            for (final String v : result.violations)
            {
                html.append("<li class=\"bad\">").append(esc(v)).append("</li>");
            }
            html.append("</ul>\n");
        }
        html.append("<p>Latency: ").append(esc(result.latencyText()))
            .append(String.format(Locale.ROOT, ". VL15: %d sent, %d received, %d dropped, %d flushed. FCPs: %d " +
            "sent, %d received, %d discarded.</p>\n", result.vl15Sent, result.vl15Received, result.vl15Dropped,
            result.vl15Flushed,
            result.fcpSent, result.fcpReceived, result.fcpDiscarded));
    }

    private static void vlTable(final StringBuilder html, final SoakResult result)
    {
        html.append("<h2>Per VL</h2>\n<table><tr><th>VL</th><th>sent</th><th>received</th><th>MB received</th>")
            .append("<th>lost</th><th>destroyed by faults</th><th>damaged</th><th>out of order</th><th>duplicated</th>")
            .append("<th>credit stalls</th><th>share</th><th>predicted</th><th>measured / predicted</th></tr>\n");
        for (final SoakResult.Vl v : result.vls)
        {
            html.append("<tr><td>").append(v.vl).append(v.driven ? "" : " (not driven)").append("</td><td>")
                .append(v.sentPackets).append("</td><td>").append(v.receivedPackets).append("</td><td>")
                .append(String.format(Locale.ROOT, "%.1f", v.receivedBytes / 1e6)).append("</td><td")
                .append(v.lost > 0 ? " class=\"bad\">" : ">").append(v.lost).append("</td><td>")
                .append(v.faultLost).append("</td><td")
                .append(v.damaged > 0 ? " class=\"bad\">" : ">").append(v.damaged).append("</td><td")
                .append(v.outOfOrder > 0 ? " class=\"bad\">" : ">").append(v.outOfOrder).append("</td><td")
                .append(v.duplicated > 0 ? " class=\"bad\">" : ">").append(v.duplicated).append("</td><td>")
                .append(v.creditStalls).append("</td><td>")
                .append(String.format(Locale.ROOT, "%.4f", v.share)).append("</td><td>")
                .append(Double.isNaN(v.predictedShare) ? "" : String.format(Locale.ROOT, "%.4f", v.predictedShare))
                .append("</td><td>")
                .append(Double.isNaN(v.predictedShare) || !(v.predictedShare > 0) ? "" :
                    String.format(Locale.ROOT, "%.3f", v.share / v.predictedShare))
                .append("</td></tr>\n");
        }
        html.append("</table>\n");
        html.append("<h2>Cells per buffer class</h2>\n<p>The sender's injector arbiter (docs/injection.md): the cells ")
            .append("each VL's buffer class took, against the class's weight share among the driven VLs.</p>\n")
            .append("<table><tr><th>VL</th><th>cells</th><th>share</th><th>weight</th><th>weight share</th>")
            .append("<th>share / weight share</th></tr>\n");
        for (final SoakResult.Vl v : result.vls)
        {
            if (v.driven)
            {
                html.append(String.format(Locale.ROOT, "<tr><td>%d</td><td>%d</td><td>%.4f</td><td>%d</td>" +
                    "<td>%.4f</td><td>%.3f</td></tr>%n", v.vl, v.injectedCells, v.cellShare, v.classWeight,
                    v.weightShare, v.cellShare / v.weightShare));
            }
        }
        html.append(String.format(Locale.ROOT, "<tr><td>15</td><td>%d</td><td></td><td>%d</td><td></td><td></td>" +
            "</tr>%n</table>%n", result.vl15InjectedCells, result.vl15ClassWeight));
    }

    private static void faultsTable(final StringBuilder html, final SoakResult result)
    {
        if (result.faultsInjected.isEmpty())
        {
            return;
        }
        html.append("<h2>Injected faults</h2>\n<table><tr><th class=\"l\">kind</th><th>injected</th>")
            .append("<th>detected</th><th class=\"l\">what it is</th></tr>\n");
        for (final Map.Entry<FaultKind, Long> e : result.faultsInjected.entrySet())
        {
            html.append("<tr><td class=\"l\">").append(e.getKey().label()).append("</td><td>").append(e.getValue())
                .append("</td><td>").append(result.faultsDetected.containsKey(e.getKey()) ?
                    String.valueOf(result.faultsDetected.get(e.getKey())) : "-")
                .append("</td><td class=\"l\">").append(esc(e.getKey().description())).append("</td></tr>\n");
        }
        html.append("</table>\n");
    }

    /**
     * A line chart: one polyline per shown series over x = 1..n, from 0 up, with the faults on its time axis.
     */
    static String lineChart(
        final String title,
        final String xLabel,
        final String yLabel,
        final String[] names,
        final double[][] series,
        final boolean[] show,
        final Markers markers)
    {
        final int n = series.length == 0 ? 0 : series[0].length;
        double max = 0;
        for (int i = 0; i < series.length; i++)
        {
            if (!show[i])
            {
                continue;
            }
            for (final double y : series[i])
            {
                max = Math.max(max, y);
            }
        }
        final double yMax = niceCeiling(max);
        final double xMax = Math.max(1, n);
        final StringBuilder svg = frame(title, xLabel, yLabel, xMax, yMax, false);
        final int plotW = WIDTH - LEFT - RIGHT;
        final int plotH = HEIGHT - TOP - BOTTOM;
        markers.draw(svg, LEFT, TOP, plotW, plotH);
        int legendRow = 0;
        for (int i = 0; i < series.length; i++)
        {
            if (!show[i])
            {
                continue;
            }
            final String colour = COLOURS[i % COLOURS.length];
            final double[] fractions = new double[n];
            for (int x = 0; x < n; x++)
            {
                fractions[x] = series[i][x] / yMax;
            }
            polyline(svg, colour, fractions, LEFT, TOP + plotH, plotW, plotH);
            legend(svg, colour, names[i], legendRow++);
        }
        return svg.append("</svg>\n").toString();
    }

    /**
     * Latency against percentile on HdrHistogram's axis: x = log10(1 / (1 - p)), so 90%, 99%, 99.9% ... are
     * evenly spaced and the tail is visible. The whole run, and beside it the packets after the warm-up.
     */
    static String percentileChart(final Histogram latency, final Histogram steady, final double warmupSeconds)
    {
        if (latency == null || latency.getTotalCount() == 0)
        {
            return "<p class=\"note\">No latencies were recorded.</p>\n";
        }
        final boolean both = null != steady && steady.getTotalCount() > 0;
        final double xMax = 5; // 99.999%
        final double max = Math.max(latency.getMaxValue(), both ? steady.getMaxValue() : 0);
        final double scale = timeScale(max);
        final double yMax = niceCeiling(max / scale);
        final StringBuilder svg = frame(latency.getTotalCount() + " packets", "percentile", timeUnit(scale), xMax, yMax,
            true);
        percentileLine(svg, latency, scale, yMax, xMax, COLOURS[0], "whole run", 0);
        if (both)
        {
            percentileLine(svg, steady, scale, yMax, xMax, COLOURS[1],
                String.format(Locale.ROOT, "after %.1f s", warmupSeconds), 1);
        }
        return svg.append("</svg>\n").toString();
    }

    private static void percentileLine(
        final StringBuilder svg, final Histogram latency, final double scale, final double yMax, final double xMax,
        final String colour, final String name, final int legendRow)
    {
        final int plotW = WIDTH - LEFT - RIGHT;
        final int plotH = HEIGHT - TOP - BOTTOM;
        svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(colour).append("\" points=\"");
        for (final double p : PERCENTILES)
        {
            final double x = p >= 100 ? xMax : Math.min(xMax, Math.log10(1 / (1 - p / 100)));
            final double y = latency.getValueAtPercentile(p) / scale;
            svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + x / xMax * plotW, TOP + plotH - y / yMax * plotH));
        }
        svg.append("\"/>\n");
        legend(svg, colour, name, legendRow);
    }

    /**
     * A series as a polyline from x0 to x0 + w, evenly spaced (one point: in the middle), each point at its fraction
     * (0..1) of the height h above the bottom.
     */
    private static void polyline(
        final StringBuilder svg, final String colour, final double[] fractions, final double x0, final double bottom,
        final double w, final double h)
    {
        final int n = fractions.length;
        if (0 == n)
        {
            return;
        }
        svg.append("<polyline fill=\"none\" stroke-width=\"1.6\" stroke=\"").append(colour).append("\" points=\"");
        for (int x = 0; x < n; x++)
        {
            final double px = x0 + (n == 1 ? w / 2.0 : (double)x / (n - 1) * w);
            svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, bottom - fractions[x] * h));
        }
        svg.append("\"/>\n");
    }

    private static void legend(final StringBuilder svg, final String colour, final String name, final int row)
    {
        final int ly = TOP + 6 + row * 16;
        svg.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
            WIDTH - RIGHT + 14, ly, colour, WIDTH - RIGHT + 30, ly + 5, esc(name)));
    }

    /**
     * A y axis: where each tick is (0 at the bottom, 1 at the top), what it says, and where a value sits.
     */
    record Axis(double[] at, String[] labels, DoubleUnaryOperator fraction)
    {
    }

    /**
     * @param max the largest value.
     * @return 0 to a nice ceiling above it, three ticks.
     */
    static Axis linearAxis(final double max)
    {
        final double yMax = niceCeiling(max);
        return new Axis(new double[] {0, 0.5, 1}, new String[] {"0", number(yMax / 2), number(yMax)},
            value -> Math.max(0, Math.min(1, value / yMax)));
    }

    /**
     * One decade a band, from a decade below the smallest positive value of the shown series (at most
     * {@link #LOG_DECADES} decades below the largest); zeros sit on the bottom line.
     */
    static Axis logAxis(final double[][] series, final boolean[] show)
    {
        double max = 0;
        double min = Double.MAX_VALUE;
        for (int i = 0; i < series.length; i++)
        {
            for (final double y : show[i] ? series[i] : new double[0])
            {
                max = Math.max(max, y);
                min = y > 0 ? Math.min(min, y) : min;
            }
        }
        final int top = max > 0 ? (int)Math.ceil(Math.log10(max)) : 0;
        final int bottom = max > 0 ? Math.max(top - LOG_DECADES, (int)Math.floor(Math.log10(min))) : top - 1;
        final int decades = Math.max(1, top - bottom);
        final double[] at = new double[decades + 1];
        final String[] labels = new String[decades + 1];
        for (int i = 0; i <= decades; i++)
        {
            at[i] = (double)i / decades;
            labels[i] = number(Math.pow(10, bottom + i));
        }
        return new Axis(at, labels,
            value -> value > 0 ? Math.max(0, Math.min(1, (Math.log10(value) - bottom) / decades)) : 0);
    }

    /**
     * Per data VL, the predicted share as steps: {@code from, share, from, share, ...} in seconds since traffic
     * started, one pair per set of tables (the timeline's phases; without them, the whole run's prediction from 0).
     */
    static double[][] predictionSteps(final SoakTimeline timeline, final double[] predicted)
    {
        final int vls = predicted.length;
        final List<SoakTimeline.Phase> phases = timeline.phases();
        final double[][] steps = new double[vls][];
        for (int vl = 0; vl < vls; vl++)
        {
            if (phases.isEmpty())
            {
                steps[vl] = new double[] {0, predicted[vl]};
                continue;
            }
            steps[vl] = new double[2 * phases.size()];
            for (int i = 0; i < phases.size(); i++)
            {
                steps[vl][2 * i] = phases.get(i).fromSeconds();
                steps[vl][2 * i + 1] = phases.get(i).predicted()[vl];
            }
        }
        return steps;
    }

    /**
     * Where a time falls on an axis whose points are seconds 1..n, each at the end of its second: second s covers
     * (s - 1, s] since traffic started, so a time before the first point is at the left edge.
     */
    static double xOf(final double atSeconds, final int n, final double x0, final double w)
    {
        return n <= 1 ? x0 + w / 2.0 : x0 + Math.max(0, Math.min(1, (atSeconds - 1) / (n - 1))) * w;
    }

    /**
     * The timed faults of a run, drawn on every time axis: a table replacement or a link bounce as a line across the
     * plot, the once-a-second faults (receiver stall, VL15 flood) as ticks along its bottom. One path per kind and
     * axis, with the times as data.
     */
    static final class Markers
    {
        private final Map<FaultKind, List<Double>> times = new EnumMap<>(FaultKind.class);
        private final int seconds;

        Markers(final List<SoakTimeline.Fault> faults, final int seconds)
        {
            for (final SoakTimeline.Fault fault : faults)
            {
                times.computeIfAbsent(fault.kind(), kind -> new ArrayList<>()).add(fault.atSeconds());
            }
            this.seconds = seconds;
        }

        private static boolean across(final FaultKind kind)
        {
            return FaultKind.RETABLE == kind || FaultKind.LINK_BOUNCE == kind;
        }

        private static String colour(final FaultKind kind)
        {
            switch (kind)
            {
                case RETABLE:
                    return "#6a1b9a";
                case LINK_BOUNCE:
                    return "#c62828";
                case STALL_RECEIVER:
                    return "#ef6c00";
                default:
                    return "#616161";
            }
        }

        /** What the marks mean, once for the page; nothing when no timed fault ran. */
        String legend()
        {
            if (times.isEmpty())
            {
                return "";
            }
            final StringBuilder html = new StringBuilder("<p class=\"note\">Faults on every time axis:");
            for (final Map.Entry<FaultKind, List<Double>> e : times.entrySet())
            {
                html.append(" <span style=\"color:").append(colour(e.getKey())).append(";font-weight:bold\">")
                    .append(across(e.getKey()) ? "&#9475; " : "&#9601; ").append(e.getKey().label())
                    .append("</span> (").append(e.getValue().size()).append(')');
            }
            return html.append(".</p>\n").toString();
        }

        /** Draw every kind's marks on a plot whose time axis runs from x0 to x0 + w. */
        void draw(final StringBuilder svg, final double x0, final double top, final double w, final double h)
        {
            for (final Map.Entry<FaultKind, List<Double>> e : times.entrySet())
            {
                final boolean across = across(e.getKey());
                final StringBuilder path = new StringBuilder();
                final StringBuilder data = new StringBuilder();
                for (final double t : e.getValue())
                {
                    final double x = xOf(t, seconds, x0, w);
                    path.append(String.format(Locale.ROOT, "M%.1f %.1fv%.1f", x, top + h, across ? -h : -8.0));
                    data.append(data.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.3f", t));
                }
                svg.append("<path class=\"fault\" data-kind=\"").append(e.getKey().label())
                    .append("\" data-times=\"").append(data).append("\" stroke=\"").append(colour(e.getKey()))
                    // a retable and a bounce at the same time (they may be: k/(N+1) and (k+1/2)/N of the run) show
                    // both: their dashes interleave
                    .append(across ? "\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"" +
                        (FaultKind.LINK_BOUNCE == e.getKey() ? " stroke-dashoffset=\"3\"" : "") :
                        "\" stroke-width=\"1\"")
                    .append(" fill=\"none\" d=\"").append(path).append("\"/>\n");
            }
        }
    }

    /**
     * One small chart per shown VL, {@value #PANELS_PER_ROW} a row: the VL's series over the run's seconds on a
     * shared axis or one of its own, its predicted steps (dashed) when given, and the faults on its time axis.
     *
     * @param chart  the panels' name in the page's data ({@code data-chart}).
     * @param titles per VL, what its title says after its name (null: nothing).
     * @param shared the axis of every panel, or null for {@code own}.
     * @param own    per VL, its own axis.
     * @param unit   what the axis counts, said once in the first panel (null: nothing).
     * @param steps  per VL, {@code from, value, ...} (null: none).
     */
    static String panels(
        final String chart, final String[] names, final double[][] series, final boolean[] show,
        final String[] titles, final Axis shared, final Axis[] own, final Markers markers, final String unit,
        final double[][] steps)
    {
        final StringBuilder svg = new StringBuilder(16 * 1024);
        int shown = 0;
        for (final boolean s : show)
        {
            shown += s ? 1 : 0;
        }
        final int rows = Math.max(1, (shown + PANELS_PER_ROW - 1) / PANELS_PER_ROW);
        svg.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
            WIDTH, rows * PANEL_H, WIDTH, rows * PANEL_H));
        final int n = series.length == 0 ? 0 : series[0].length;
        int panel = 0;
        for (int vl = 0; vl < series.length; vl++)
        {
            if (!show[vl])
            {
                continue;
            }
            final Axis axis = null != shared ? shared : own[vl];
            final int x0 = (panel % PANELS_PER_ROW) * PANEL_W;
            final int y0 = (panel / PANELS_PER_ROW) * PANEL_H;
            final int left = x0 + 44;
            final int top = y0 + 26;
            final int w = PANEL_W - 56;
            final int h = PANEL_H - 50;
            final String colour = COLOURS[vl % COLOURS.length];
            svg.append("<g class=\"panel\" data-chart=\"").append(chart).append("\" data-vl=\"").append(vl)
                .append("\">\n");
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" style=\"font-weight:bold\">%s</text>" +
                "<text x=\"%d\" y=\"%d\">%s</text>\n", x0 + 8, y0 + 16, esc(names[vl]), x0 + 48, y0 + 16,
                esc(null != titles ? titles[vl] : 0 == panel && null != unit ? unit : "")));
            for (int i = 0; i < axis.at().length; i++)
            {
                final double y = top + h - axis.at()[i] * h;
                svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>" +
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    left, y, left + w, y, left - 4, y + 4, axis.labels()[i]));
            }
            svg.append(String.format(Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>" +
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">second 1..%d</text>\n",
                left, top, w, h, left + w / 2, top + h + 15, Math.max(1, n)));
            markers.draw(svg, left, top, w, h);
            if (null != steps)
            {
                predicted(svg, steps[vl], n, left, top, w, h, axis, colour);
            }
            final double[] fractions = new double[n];
            for (int x = 0; x < n; x++)
            {
                fractions[x] = axis.fraction().applyAsDouble(series[vl][x]);
            }
            polyline(svg, colour, fractions, left, top + h, w, h);
            svg.append("</g>\n");
            panel++;
        }
        return svg.append("</svg>\n").toString();
    }

    /** The predicted steps as one dashed path: level from each phase's start to the next's, to the axis's end. */
    private static void predicted(final StringBuilder svg, final double[] steps, final int n, final double left,
        final double top, final double w, final double h, final Axis axis, final String colour)
    {
        final StringBuilder path = new StringBuilder();
        final StringBuilder data = new StringBuilder();
        for (int i = 0; i < steps.length; i += 2)
        {
            if (Double.isNaN(steps[i + 1]))
            {
                continue;
            }
            final double y = top + h - axis.fraction().applyAsDouble(steps[i + 1]) * h;
            final double from = 0 == i ? left : xOf(steps[i], n, left, w);
            final double to = i + 2 < steps.length ? xOf(steps[i + 2], n, left, w) : left + w;
            path.append(String.format(Locale.ROOT, "M%.1f %.1fH%.1f", from, y, to));
            data.append(data.length() == 0 ? "" : " ")
                .append(String.format(Locale.ROOT, "%.3f:%.4f", steps[i], steps[i + 1]));
        }
        if (path.length() > 0)
        {
            svg.append("<path class=\"predicted\" data-steps=\"").append(data).append("\" stroke=\"")
                .append(colour).append("\" stroke-dasharray=\"6 4\" fill=\"none\" d=\"").append(path)
                .append("\"/>\n");
        }
    }

    private static double vlShare(final SoakResult result, final int vl)
    {
        for (final SoakResult.Vl v : result.vls)
        {
            if (v.vl == vl)
            {
                return v.share;
            }
        }
        return 0;
    }

    private static StringBuilder frame(
        final String title, final String xLabel, final String yLabel, final double xMax, final double yMax,
        final boolean percentileAxis)
    {
        final double[] at = new double[6];
        final String[] labels = new String[6];
        for (int i = 0; i <= 5; i++)
        {
            at[i] = i / 5.0;
            labels[i] = number(yMax * i / 5);
        }
        return frame(title, xLabel, yLabel, xMax, at, labels, percentileAxis);
    }

    /**
     * @param at     where each y tick is, 0 (bottom) to 1 (top).
     * @param labels what each y tick says.
     */
    private static StringBuilder frame(
        final String title, final String xLabel, final String yLabel, final double xMax, final double[] at,
        final String[] labels, final boolean percentileAxis)
    {
        final int plotW = WIDTH - LEFT - RIGHT;
        final int plotH = HEIGHT - TOP - BOTTOM;
        final StringBuilder svg = new StringBuilder(8 * 1024);
        svg.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
            WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" style=\"font-weight:bold\">%s</text>\n",
            LEFT, esc(title)));
        for (int i = 0; i < at.length; i++)
        {
            final double y = TOP + plotH - at[i] * plotH;
            svg.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>" +
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                LEFT, y, LEFT + plotW, y, LEFT - 6, y + 4, labels[i]));
        }
        if (percentileAxis)
        {
            final String[] percentiles = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
            for (int i = 0; i <= 5; i++)
            {
                final double x = LEFT + i / xMax * plotW;
                svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>" +
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                    x, TOP, x, TOP + plotH, x, TOP + plotH + 16, percentiles[i]));
            }
        }
        else
        {
            // whole seconds: a tick every `step` seconds, at most about ten
            final int last = (int)Math.max(1, xMax);
            final int step = Math.max(1, (int)Math.ceil((last - 1) / 10.0));
            for (int second = 1; second <= last; second += step)
            {
                final double x = LEFT + (last == 1 ? plotW / 2.0 : (double)(second - 1) / (last - 1) * plotW);
                svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
                    x, TOP + plotH + 16, second));
            }
        }
        svg.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n" +
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n" +
            "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">%s</text>\n",
            LEFT, TOP, plotW, plotH, LEFT + plotW / 2, HEIGHT - 8, esc(xLabel),
            TOP + plotH / 2, TOP + plotH / 2, esc(yLabel)));
        return svg;
    }

    /**
     * @return the smallest 1, 2 or 5 times a power of ten at or above {@code value} (1 for nothing).
     */
    static double niceCeiling(final double value)
    {
        if (!(value > 0))
        {
            return 1;
        }
        final double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (final double step : new double[] {1, 2, 5, 10})
        {
            if (step * magnitude >= value)
            {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String number(final double value)
    {
        if (value == Math.rint(value) && Math.abs(value) < 1e9)
        {
            return Long.toString((long)value);
        }
        return String.format(Locale.ROOT, Math.abs(value) < 1 ? "%.3f" : "%.1f", value);
    }

    /**
     * @return nanoseconds per axis unit for values up to {@code maxNs}: ns below 10 µs, µs below 10 ms, ms below
     * 10 s, else s.
     */
    static double timeScale(final double maxNs)
    {
        return maxNs < 1e4 ? 1 : maxNs < 1e7 ? 1e3 : maxNs < 1e10 ? 1e6 : 1e9;
    }

    static String timeUnit(final double scale)
    {
        return scale == 1 ? "ns" : scale == 1e3 ? "µs" : scale == 1e6 ? "ms" : "s";
    }

    static String esc(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
