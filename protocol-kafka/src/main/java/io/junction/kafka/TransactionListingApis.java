package io.junction.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.ListTransactionsRequest;

/**
 * ListTransactions and DescribeTransactions (AdminClient's listTransactions and describeTransactions, and tools that
 * look for hanging transactions) from the {@link TransactionCoordinator}'s state. A client sees the transactional ids
 * of its own namespace; the states are Kafka's names: Empty, Ongoing and PrepareCommit (a commit being applied).
 */
final class TransactionListingApis {
    /** The states this coordinator can be in, as Kafka names them (other known names match nothing). */
    private static final Set<String> KNOWN_STATES = Set.of("Empty", "Ongoing", "PrepareCommit", "PrepareAbort",
            "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence");

    private final TransactionCoordinator transactions;

    TransactionListingApis(final TransactionCoordinator transactions) {
        this.transactions = transactions;
    }

    CompletableFuture<ApiMessage> listTransactions(final KafkaRequest request) {
        final ListTransactionsRequestData data = ((ListTransactionsRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final ListTransactionsResponseData r = new ListTransactionsResponseData();
        final Pattern pattern;
        try {
            pattern = data.transactionalIdPattern() == null || data.transactionalIdPattern().isEmpty() ? null
                    : Pattern.compile(data.transactionalIdPattern());
        } catch (PatternSyntaxException e) {
            return done(r.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
        }
        r.setUnknownStateFilters(data.stateFilters().stream().filter(s -> !KNOWN_STATES.contains(s)).toList());
        final long now = System.currentTimeMillis();
        for (TransactionCoordinator.View v : transactions.views()) {
            final String id = scope.groupId(v.id());
            if (id == null
                    || (!data.stateFilters().isEmpty() && !data.stateFilters().contains(v.state()))
                    || (!data.producerIdFilters().isEmpty() && !data.producerIdFilters().contains(v.producerId()))
                    || (data.durationFilter() >= 0
                    && (v.startedAt() < 0 || now - v.startedAt() < data.durationFilter()))
                    || (pattern != null && !pattern.matcher(id).matches())) {
                continue;
            }
            r.transactionStates().add(new ListTransactionsResponseData.TransactionState().setTransactionalId(id)
                    .setProducerId(v.producerId()).setTransactionState(v.state()));
        }
        return done(r);
    }

    CompletableFuture<ApiMessage> describeTransactions(final KafkaRequest request) {
        final DescribeTransactionsRequestData data = ((DescribeTransactionsRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final Map<String, TransactionCoordinator.View> byId = new HashMap<>();
        transactions.views().forEach(v -> byId.put(v.id(), v));
        final DescribeTransactionsResponseData r = new DescribeTransactionsResponseData();
        for (String id : data.transactionalIds()) {
            final TransactionCoordinator.View v = id == null || id.isEmpty() ? null : byId.get(scope.group(id));
            final DescribeTransactionsResponseData.TransactionState s = new DescribeTransactionsResponseData
                    .TransactionState().setTransactionalId(id);
            if (v == null) {
                r.transactionStates().add(s.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code()));
                continue;
            }
            final DescribeTransactionsResponseData.TopicDataCollection topics =
                    new DescribeTransactionsResponseData.TopicDataCollection();
            final Map<String, List<Integer>> partitions = new HashMap<>();
            for (TransactionCoordinator.Partition p : v.partitions()) {
                final String name = scope.kafkaName(p.topic());
                if (name != null) {
                    partitions.computeIfAbsent(name, n -> new ArrayList<>()).add(p.queue());
                }
            }
            partitions.forEach((name, list) -> topics.add(new DescribeTransactionsResponseData.TopicData()
                    .setTopic(name).setPartitions(list.stream().sorted().toList())));
            r.transactionStates().add(s.setTransactionState(v.state()).setTransactionTimeoutMs(v.timeoutMs())
                    .setTransactionStartTimeMs(v.startedAt()).setProducerId(v.producerId())
                    .setProducerEpoch(v.epoch()).setTopics(topics));
        }
        return done(r);
    }

    private static CompletableFuture<ApiMessage> done(final ApiMessage message) {
        return CompletableFuture.completedFuture(message);
    }
}
