package io.vlink.core.credit;

import org.junit.jupiter.api.Test;

class LinkTrainingCheckTest
{
    private static void run(final String name, final LinkTrainingConfig config, final int depth)
    {
        final LinkTrainingCheck check = new LinkTrainingCheck(config, depth);
        final LinkTrainingCheck.Result result = check.run();
        final String text = result.toString();
        System.out.println("== " + name + " (" + config + "): " + (Boolean.getBoolean("full") ? text :
            text.lines().limit(2).reduce("", (x, y) -> x + y + "\n")));
    }

    @Test
    void experiment()
    {
        final int d = Integer.getInteger("depth", 12);
        final String which = System.getProperty("which", "abcdef");
        if (which.contains("a")) run("one-sided bounce, cycles", LinkTrainingConfig.builder().bounces(1, 0).build(), d);
        if (which.contains("b")) run("both bounce, cycles", LinkTrainingConfig.builder().bounces(1, 1).offers(1).build(), d);
        if (which.contains("c")) run("start down", LinkTrainingConfig.builder().bounces(1, 0).startActive(false).build(), d);
        if (which.contains("d")) run("one loss", LinkTrainingConfig.builder().bounces(0, 0).faults(1, true, false, false).build(), d);
        if (which.contains("e")) run("one dup/delay", LinkTrainingConfig.builder().bounces(0, 0).faults(1, false, true, true).build(), d);
        if (which.contains("f")) run("agent steps, bounce", LinkTrainingConfig.builder().bounces(1, 0).agentSteps(true).build(), d);
        if (which.contains("g")) run("two vls bounce", LinkTrainingConfig.builder().dataVls(2).offers(1).bounces(1, 0).build(), d);
        if (which.contains("h")) run("bounce + loss", LinkTrainingConfig.builder().bounces(1, 0).offers(1).faults(1, true, false, false).build(), d);
        if (which.contains("i")) run("bounce + dup/delay", LinkTrainingConfig.builder().bounces(1, 0).offers(1).faults(1, false, true, true).build(), d);
        if (which.contains("j")) run("agent steps, both bounce", LinkTrainingConfig.builder().bounces(1, 1).offers(1).agentSteps(true).build(), d);
        if (which.contains("k")) run("two bounces a", LinkTrainingConfig.builder().bounces(2, 0).offers(1).build(), d);
        if (which.contains("l")) run("start down both bounce", LinkTrainingConfig.builder().bounces(1, 1).offers(1).startActive(false).build(), d);
    }
}
