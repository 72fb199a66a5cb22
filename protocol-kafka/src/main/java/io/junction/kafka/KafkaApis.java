package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Principal;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The request handlers by API, and the versions served. Produce and Fetch stop at version 12 and OffsetCommit and
 * OffsetFetch at 9: later versions name topics only by id, which this broker does not hand out. With security on
 * ({@code security.enabled}) a connection must authenticate with SASL/PLAIN ({@link SaslApis}) first: until then
 * every request but ApiVersions, SaslHandshake and SaslAuthenticate is refused (Metadata with
 * TOPIC_AUTHORIZATION_FAILED for each topic, the rest with CLUSTER_AUTHORIZATION_FAILED), so nothing passes
 * unauthenticated; afterwards each handler asks the connection's {@link ClientScope}.
 */
final class KafkaApis {
    private final SupportedApis supported = new SupportedApis();
    private final Map<ApiKeys, ApiHandler> handlers = new EnumMap<>(ApiKeys.class);
    private final AccessControl access;
    private final MetadataApi metadata;
    private final TransactionCoordinator transactions;

    KafkaApis(final Messaging messaging, final KafkaSettings settings, final GroupCoordinator coordinator,
              final AccessControl access) {
        this.access = access;
        final KafkaTopics topics = new KafkaTopics(messaging, settings);
        final ProducerStates producers = new ProducerStates(System::currentTimeMillis);
        supported.add(ApiKeys.API_VERSIONS);
        handlers.put(ApiKeys.API_VERSIONS, r -> CompletableFuture.completedFuture(apiVersions()));
        final SaslApis sasl = new SaslApis(access);
        register(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_HANDSHAKE.latestVersion(), sasl::handshake);
        register(ApiKeys.SASL_AUTHENTICATE, ApiKeys.SASL_AUTHENTICATE.latestVersion(), sasl::authenticate);
        metadata = new MetadataApi(topics, settings.nodeId());
        register(ApiKeys.METADATA, ApiKeys.METADATA.latestVersion(), metadata);
        transactions = new TransactionCoordinator(messaging, producers, settings.maxTransactionBytes(),
                System::currentTimeMillis);
        register(ApiKeys.PRODUCE, 12, new ProduceApi(messaging, topics, producers, transactions));
        register(ApiKeys.FETCH, 12, new FetchApi(messaging, topics, settings.maxFetchBytes()));
        register(ApiKeys.LIST_OFFSETS, ApiKeys.LIST_OFFSETS.latestVersion(), new ListOffsetsApi(messaging, topics));
        final TransactionApis txn = new TransactionApis(producers, transactions, coordinator, topics);
        register(ApiKeys.INIT_PRODUCER_ID, ApiKeys.INIT_PRODUCER_ID.latestVersion(), txn::initProducerId);
        // Versions 4 and later of AddPartitionsToTxn are brokers' (batched by transaction), not clients'.
        register(ApiKeys.ADD_PARTITIONS_TO_TXN, 3, txn::addPartitionsToTxn);
        register(ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.ADD_OFFSETS_TO_TXN.latestVersion(), txn::addOffsetsToTxn);
        register(ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.TXN_OFFSET_COMMIT.latestVersion(), txn::txnOffsetCommit);
        register(ApiKeys.END_TXN, ApiKeys.END_TXN.latestVersion(), txn::endTxn);
        final TransactionListingApis listing = new TransactionListingApis(transactions);
        register(ApiKeys.LIST_TRANSACTIONS, ApiKeys.LIST_TRANSACTIONS.latestVersion(), listing::listTransactions);
        register(ApiKeys.DESCRIBE_TRANSACTIONS, ApiKeys.DESCRIBE_TRANSACTIONS.latestVersion(),
                listing::describeTransactions);
        register(ApiKeys.DESCRIBE_PRODUCERS, ApiKeys.DESCRIBE_PRODUCERS.latestVersion(),
                new DescribeProducersApi(messaging, topics, producers));
        final GroupApis groups = new GroupApis(coordinator, settings.nodeId());
        register(ApiKeys.FIND_COORDINATOR, ApiKeys.FIND_COORDINATOR.latestVersion(), groups::findCoordinator);
        register(ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.latestVersion(), groups::joinGroup);
        register(ApiKeys.SYNC_GROUP, ApiKeys.SYNC_GROUP.latestVersion(), groups::syncGroup);
        register(ApiKeys.HEARTBEAT, ApiKeys.HEARTBEAT.latestVersion(), groups::heartbeat);
        register(ApiKeys.LEAVE_GROUP, ApiKeys.LEAVE_GROUP.latestVersion(), groups::leaveGroup);
        register(ApiKeys.DESCRIBE_GROUPS, ApiKeys.DESCRIBE_GROUPS.latestVersion(), groups::describeGroups);
        register(ApiKeys.LIST_GROUPS, ApiKeys.LIST_GROUPS.latestVersion(), groups::listGroups);
        final AdminApis admin = new AdminApis(messaging, topics, settings);
        register(ApiKeys.DESCRIBE_CLUSTER, ApiKeys.DESCRIBE_CLUSTER.latestVersion(), admin::describeCluster);
        register(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), admin::createTopics);
        register(ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_TOPICS.latestVersion(), admin::deleteTopics);
        register(ApiKeys.CREATE_PARTITIONS, ApiKeys.CREATE_PARTITIONS.latestVersion(), admin::createPartitions);
        register(ApiKeys.DESCRIBE_CONFIGS, ApiKeys.DESCRIBE_CONFIGS.latestVersion(), admin::describeConfigs);
        register(ApiKeys.DELETE_RECORDS, ApiKeys.DELETE_RECORDS.latestVersion(), admin::deleteRecords);
        final AlterConfigsApis alter = new AlterConfigsApis(messaging, topics);
        register(ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion(),
                alter::incrementalAlterConfigs);
        register(ApiKeys.ALTER_CONFIGS, ApiKeys.ALTER_CONFIGS.latestVersion(), alter::alterConfigs);
        final OffsetApis offsets = new OffsetApis(coordinator, topics);
        register(ApiKeys.OFFSET_COMMIT, 9, offsets::offsetCommit);
        register(ApiKeys.OFFSET_FETCH, 9, offsets::offsetFetch);
    }

    private void register(final ApiKeys api, final int maxVersion, final ApiHandler handler) {
        supported.add(api, maxVersion);
        handlers.put(api, handler);
    }

    boolean supports(final ApiKeys api, final short version) {
        return supported.supports(api, version);
    }

    CompletableFuture<ApiMessage> handle(final KafkaRequest request) {
        final ApiKeys api = request.header().apiKey();
        if (request.connection().scope() == null && api != ApiKeys.API_VERSIONS && api != ApiKeys.SASL_HANDSHAKE
                && api != ApiKeys.SASL_AUTHENTICATE) {
            if (request.header().apiKey() == ApiKeys.METADATA) {
                // Each topic refused: clients report TopicAuthorizationException.
                return CompletableFuture.completedFuture(metadata.refused(request));
            }
            return CompletableFuture.completedFuture(request.body()
                    .getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception()).data());
        }
        return handlers.get(request.header().apiKey()).handle(request);
    }

    /** Recovers the transaction coordinator's state from the store (before the listeners open). */
    CompletableFuture<Void> recover() {
        return transactions.recover();
    }

    /** Stops the transaction coordinator's timeouts. */
    void close() {
        transactions.close();
    }

    /** What a connection may do before it authenticates: everything with security off, nothing with it on. */
    ClientScope anonymousScope() {
        return access.enabled() ? null : new ClientScope(access, Principal.ANONYMOUS);
    }

    ApiVersionsResponseData apiVersions() {
        return supported.response(Errors.NONE);
    }

    /** The v0 answer to an ApiVersions request in a version this broker does not know. */
    ApiVersionsResponseData unsupportedApiVersions() {
        return supported.response(Errors.UNSUPPORTED_VERSION);
    }
}
