package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.junit.jupiter.api.Test;

class ScratchTraceTest
{
    private static String fcps(final TestLink.Side side, final int from)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = from; i < side.sentFcps.size(); i++)
        {
            final int w = side.sentFcps.get(i)[1];
            b.append(Fcp.op(w) == 1 ? "I" : "N").append(Fcp.vl(w)).append(' ');
        }
        return b.toString();
    }

    @Test
    void trace()
    {
        final TestLink link = new TestLink(new CreditConfig().dataVls(4).bufferBlocks(512).lineRate(LineRate.EDR_4X)
            .automatic(true), 100);
        if (Boolean.getBoolean("late"))
        {
            link.a.wantsToSend = true;
            link.a.port.up(link.now());
            link.steps(3);
            link.b.port.up(link.now());
        }
        else
        {
            link.a.wantsToSend = true;
            link.b.wantsToSend = true;
            link.a.port.up(link.now());
            link.b.port.up(link.now());
            link.steps(250);
            link.b.port.down();
            link.b.port.up(link.now());
        }
        for (int i = 0; i < 12; i++)
        {
            final int fa = link.a.sentFcps.size();
            final int fb = link.b.sentFcps.size();
            link.step();
            System.out.println("step " + i + ": a " + link.a.port.state() + " await " + link.a.port.link().await() +
                " owed " + link.a.port.link().initOwed() + " sent " + fcps(link.a, fa) + "| b " + link.b.port.state() +
                " await " + link.b.port.link().await() + " owed " + link.b.port.link().initOwed() + " sent " +
                fcps(link.b, fb));
        }
    }
}
