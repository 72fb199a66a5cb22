package io.junction.core.pop;

import io.junction.core.PullResult;
import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.threads.StoreTasks;
import java.util.concurrent.CompletableFuture;

/**
 * Sends a group's dead letters back to the topics they came from. Its position in each dead-letter topic is
 * committed under a pseudo-group of its own, so a message is re-driven once, even across restarts.
 */
final class DeadLetterRedrive {
    private final PopStore store;

    DeadLetterRedrive(final PopStore store) {
        this.store = store;
    }

    /**
     * Sends up to {@code max} dead letters of the group back to their original topics with their delivery count
     * reset, oldest first; the position is kept, so a message is re-driven once.
     */
    CompletableFuture<Integer> redrive(final String group, final int max) {
        final String dlq = SystemNames.deadLetterTopic(group);
        if (store.topic(dlq).isEmpty()) {
            return CompletableFuture.completedFuture(0);
        }
        return StoreTasks.supply(store.readExecutor(), () -> {
            long offset = Math.max(store.committedOffset(SystemNames.REDRIVE_GROUP, dlq, 0), store.minOffset(dlq, 0));
            int moved = 0;
            while (moved < max) {
                final PullResult r = store.read(dlq, 0, offset, Math.min(32, max - moved), null);
                if (r.messages().isEmpty()) {
                    break;
                }
                for (StoredMessage m : r.messages()) {
                    final String origin = m.property(MessageProperties.DLQ_ORIGIN_TOPIC);
                    if (origin != null) {
                        store.append(Message.builder(origin).body(m.bodyBytes()).flag(m.flag())
                                .properties(m.properties()).property(MessageProperties.DLQ_ORIGIN_TOPIC, null)
                                .property(MessageProperties.DLQ_ORIGIN_ID, null).sysFlag(m.sysFlag())
                                .bornTimestamp(m.bornTimestamp()).bornHost(m.bornHost()).build()).join();
                        moved++;
                    }
                    offset = m.queueOffset() + 1;
                    store.commitOffset(SystemNames.REDRIVE_GROUP, dlq, 0, offset);
                }
            }
            return moved;
        });
    }
}
