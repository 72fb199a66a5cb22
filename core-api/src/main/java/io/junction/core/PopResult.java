package io.junction.core;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The messages a pop took (empty when nothing arrived within the wait). */
public record PopResult(List<PoppedMessage> messages) {

    private static final Logger LOG = LoggerFactory.getLogger(PopResult.class);

    /**
     * Makes these messages visible to the group again at once, for a result nobody will deliver: its caller cancelled
     * (its client left) after the pop had taken them, so the pop's own give-back of a cancelled wait did not run, and
     * without this they would stay invisible until their invisible time. Every layer that puts a future of its own
     * between a caller and a pop (a wrapper, a network hop) calls this when the hand-over to its caller fails.
     */
    public void giveBack(final Messaging core, final String group) {
        for (PoppedMessage m : messages) {
            core.giveBack(group, m.receiptHandle()).whenComplete((x, e) -> {
                if (e != null) {
                    LOG.debug("Giving back a message of a cancelled pop for {} failed: {}", group, e.getMessage());
                }
            });
        }
    }
}
