package io.junction.core.engine;

import java.io.IOException;

/**
 * A replica's log ends before the offset its group recorded as applied (a snapshot installed from the leader whose
 * log range was not all fetched before a crash, or files lost): the store cannot open there. The replica may open
 * at what it has and fetch the rest from its leader.
 */
public final class ShortLogException extends IOException {
    private static final long serialVersionUID = 1L;

    public ShortLogException(final String message) {
        super(message);
    }
}
