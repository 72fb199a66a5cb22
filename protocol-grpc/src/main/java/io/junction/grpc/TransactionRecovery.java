package io.junction.grpc;

import apache.rocketmq.v2.RecoverOrphanedTransactionCommand;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.TelemetryCommand;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.txn.TransactionChecker;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Check-back of unresolved half messages: a {@code RecoverOrphanedTransactionCommand} on the Telemetry stream of a
 * producer that declared the message's topic (gRPC's producer group is the topic). The producer answers with
 * EndTransaction (source SOURCE_SERVER_CHECK).
 */
final class TransactionRecovery implements TransactionChecker {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionRecovery.class);

    private final ClientSessions sessions;

    TransactionRecovery(final ClientSessions sessions) {
        this.sessions = sessions;
    }

    @Override
    public void check(final String producerGroup, final StoredMessage half, final int checkTimes) {
        final String topic = half.realTopic();
        if (topic == null) {
            return;
        }
        List<ClientSessions.Session> candidates = sessions.producersOf(topic);
        if (candidates.isEmpty() && producerGroup != null) {
            candidates = sessions.producersOf(producerGroup);
        }
        if (candidates.isEmpty()) {
            LOG.debug("no gRPC producer of {} connected to check back transaction {}", topic, half.uniqueId());
            return;
        }
        String txId = half.property(MessageProperties.TRANSACTION_ID);
        if (txId == null || txId.isEmpty()) {
            txId = half.uniqueId();
        }
        final int start = ThreadLocalRandom.current().nextInt(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
            final ClientSessions.Session candidate = candidates.get((start + i) % candidates.size());
            // the producer sees the topic as it declared it (namespace apart, name unwrapped)
            final Resource declared = candidate.publishedTopic(topic);
            final TelemetryCommand command = TelemetryCommand.newBuilder()
                    .setStatus(Statuses.OK)
                    .setRecoverOrphanedTransactionCommand(RecoverOrphanedTransactionCommand.newBuilder()
                            .setMessage(MessageMapping.toProto(half, ResourceNames.shown(declared == null ? ""
                                    : declared.getResourceNamespace(), topic), null, 1, 0))
                            .setTransactionId(txId))
                    .build();
            if (candidate.write(command)) {
                return;
            }
        }
    }
}
