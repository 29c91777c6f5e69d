package io.vlink.tools.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a soak report draws, read back from the data its SVG carries (not from pixels): each chart with a time axis,
 * its panels (chart and VL), each panel's predicted steps, and the fault marks of each kind on each time axis.
 */
public final class ReportData
{
    /** One time axis: a per-VL panel, or a whole chart. */
    public static final class TimeAxis
    {
        /** {@code throughput}, {@code share}, {@code stalls}, or {@code p99} for the whole-run chart. */
        public String chart;
        /** The panel's VL, -1 for a whole chart. */
        public int vl = -1;
        /** {@code from:share} pairs of the predicted steps (empty: none drawn). */
        public final List<double[]> steps = new ArrayList<>();
        /** Per fault kind, the times marked. */
        public final Map<String, List<Double>> faults = new LinkedHashMap<>();
    }

    private static final Pattern PANEL = Pattern.compile(
        "(?s)<g class=\"panel\" data-chart=\"([a-z0-9]+)\" data-vl=\"(\\d+)\">(.*?)</g>");
    private static final Pattern FAULT = Pattern.compile(
        "<path class=\"fault\" data-kind=\"([a-z0-9-]+)\" data-times=\"([0-9. ]*)\"");
    private static final Pattern STEPS = Pattern.compile("<path class=\"predicted\" data-steps=\"([0-9.: ]*)\"");
    private static final Pattern SVG = Pattern.compile("(?s)<svg .*?</svg>");

    private ReportData()
    {
    }

    /**
     * @param html a report.
     * @return every time axis it draws: the panels in page order, then the p99 chart.
     */
    public static List<TimeAxis> timeAxes(final String html)
    {
        final List<TimeAxis> axes = new ArrayList<>();
        final Matcher panel = PANEL.matcher(html);
        while (panel.find())
        {
            final TimeAxis axis = read(panel.group(3));
            axis.chart = panel.group(1);
            axis.vl = Integer.parseInt(panel.group(2));
            axes.add(axis);
        }
        final Matcher svg = SVG.matcher(html);
        while (svg.find())
        {
            if (svg.group().contains("p99 of the packets delivered in each second"))
            {
                final TimeAxis axis = read(svg.group());
                axis.chart = "p99";
                axes.add(axis);
            }
        }
        return axes;
    }

    private static TimeAxis read(final String body)
    {
        final TimeAxis axis = new TimeAxis();
        final Matcher fault = FAULT.matcher(body);
        while (fault.find())
        {
            final List<Double> times = new ArrayList<>();
            for (final String t : fault.group(2).trim().split(" "))
            {
                if (!t.isEmpty())
                {
                    times.add(Double.parseDouble(t));
                }
            }
            axis.faults.put(fault.group(1), times);
        }
        final Matcher steps = STEPS.matcher(body);
        if (steps.find())
        {
            for (final String step : steps.group(1).trim().split(" "))
            {
                final String[] parts = step.split(":");
                axis.steps.add(new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1])});
            }
        }
        return axis;
    }
}
