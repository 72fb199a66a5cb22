package io.junction.remoting;

import io.junction.core.Messaging;
import io.junction.remoting.processor.AdminProcessor;
import io.junction.remoting.processor.ClientProcessor;
import io.junction.remoting.processor.FilterCache;
import io.junction.remoting.processor.KvConfigProcessor;
import io.junction.remoting.processor.OffsetProcessor;
import io.junction.remoting.processor.PopProcessor;
import io.junction.remoting.processor.PullProcessor;
import io.junction.remoting.processor.ReplyProcessor;
import io.junction.remoting.processor.RequestProcessor;
import io.junction.remoting.processor.RouteProcessor;
import io.junction.remoting.processor.SendProcessor;
import io.junction.remoting.processor.StaticTopicProcessor;
import io.junction.remoting.processor.SystemTopics;
import io.junction.remoting.processor.TransactionProcessor;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RemotingDecoder;
import io.junction.remoting.protocol.RemotingEncoder;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.reply.ForeignRequests;
import io.junction.remoting.reply.PendingRequests;
import io.junction.remoting.reply.ReplyProtocol;
import io.junction.remoting.reply.ReplyPush;
import io.junction.remoting.reply.ReplyRelay;
import io.junction.remoting.reply.RocketMqRequests;
import io.junction.remoting.security.AccessGuard;
import io.junction.remoting.security.QuotaGate;
import io.junction.remoting.security.RequestPermissions;
import io.junction.remoting.security.UserAdminProcessor;
import io.junction.remoting.statictopic.StaticTopics;
import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import io.junction.spi.kit.NettyListener;
import io.junction.spi.tls.ServerTls;
import io.junction.tenancy.AccessControl;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.OptionalSslHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * RocketMQ Remoting on one port, as name server and broker at once: a route query returns this node, so a client
 * configured with {@code namesrvAddr=host:port} sends and consumes through the same port.
 */
public final class RemotingFrontEnd implements ProtocolFrontEnd {
    static final ConfigKey MAX_FRAME_SIZE = ConfigKey.of("remoting.max-frame-size", ValueKind.INT_SIZE, "16m",
            "Largest Remoting frame accepted; a longer length prefix closes the connection.");
    static final ConfigKey BROKER_NAME = ConfigKey.of("remoting.broker-name", ValueKind.STRING, "junction",
            "Broker name this node announces in Remoting routes.");
    static final ConfigKey CLUSTER_NAME = ConfigKey.of("remoting.cluster-name", ValueKind.STRING, "JunctionCluster",
            "Cluster name this node announces in Remoting routes and cluster info.");
    static final ConfigKey MAX_SUSPEND_MS = ConfigKey.of("remoting.max-long-poll-ms", ValueKind.INT, "20000",
            "Longest a pull is held waiting for messages, whatever the client asks.");
    static final ConfigKey IDLE_TIMEOUT_MS = ConfigKey.of("remoting.idle-timeout-ms", ValueKind.INT, "120000",
            "A connection with no traffic either way for this long is closed.");
    static final ConfigKey WRITE_HIGH_WATER = ConfigKey.of("remoting.write-buffer-high", ValueKind.INT_SIZE, "8m",
            "Pending response bytes above which a connection stops reading requests until they drain.");

    static final ConfigKey MAX_IN_FLIGHT = ConfigKey.of("remoting.max-inflight-requests", ValueKind.INT, "4096",
            "Requests one connection may have in progress (parked long polls included); more are answered "
                    + "SYSTEM_BUSY.");

    /** Most responses held back before a flush while more are on their way. */
    private static final int FLUSH_AFTER_WRITES = 64;

    private NettyListener listener;
    private Messaging messaging;
    /** Where accepted connections are listed: the broker's shared registry once started, a private one in tests. */
    private ClientRegistry clients = new ClientRegistry();
    private TransactionProcessor transactions;
    /** Pushes other protocols' replies to RocketMQ requesters. */
    private ReplyRelay replies;
    private volatile RemotingHandler handler;
    /** Writes of the user directory (user and ACL admin codes): they fsync, so never on an event loop. */
    private ExecutorService securityWrites;

    @Override
    public String name() {
        return "remoting";
    }

    static final ConfigKey TLS = ConfigKey.choice("remoting.tls", "DISABLED",
            "TLS on the Remoting port: DISABLED (plaintext only), PERMISSIVE (TLS and plaintext on the same port, "
                    + "told apart by the first bytes, as RocketMQ brokers do) or REQUIRED (TLS only).",
            "DISABLED", "PERMISSIVE", "REQUIRED");

    @Override
    public List<ConfigKey> configKeys() {
        final List<ConfigKey> keys = new ArrayList<>(List.of(MAX_FRAME_SIZE, BROKER_NAME, CLUSTER_NAME,
                MAX_SUSPEND_MS, IDLE_TIMEOUT_MS, WRITE_HIGH_WATER, MAX_IN_FLIGHT, TLS));
        // Certificate, key and client-certificate keys as every TLS listener has them; TLS shares the Remoting port
        // (clients reach routes and the name server at one address), so there is no tls-enabled / tls-port.
        ServerTls.keys(name(), 0).stream()
                .filter(k -> !k.name().endsWith(".tls-enabled") && !k.name().endsWith(".tls-port"))
                .forEach(keys::add);
        return keys;
    }

    @Override
    public CompletableFuture<List<Endpoint>> start(final BrokerContext context) {
        final FrontEndConfig config = context.config();
        final int port = config.port();
        final int maxFrame = (int) config.size("max-frame-size");
        final int idleMillis = config.intValue("idle-timeout-ms");
        final int highWater = (int) config.size("write-buffer-high");
        messaging = context.messaging();
        clients = context.clients();
        final CompletableFuture<List<Endpoint>> started = new CompletableFuture<>();
        final String tlsMode = config.string("tls");
        final SslContext tls;
        try {
            tls = "DISABLED".equals(tlsMode) ? null : ServerTls.serverContext(context);
        } catch (final IOException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("remoting TLS: " + e.getMessage(), e));
        }
        listener = new NettyListener(context, new WriteBufferWaterMark(highWater / 2, highWater));
        final Consumer<Channel> pipeline = ch -> {
            final RemotingHandler handler = RemotingFrontEnd.this.handler;
            if (handler == null) {
                ch.close(); // not started yet
                return;
            }
            if (tls != null) {
                ch.pipeline().addLast("tls", "REQUIRED".equals(tlsMode) ? tls.newHandler(ch.alloc())
                        : new OptionalSslHandler(tls));
            }
            initPipeline(ch.pipeline(), idleMillis, maxFrame, handler);
        };
        final ServerBootstrap bootstrap = context.eventLoops().serverBootstrap().option(ChannelOption.SO_BACKLOG, 1024);
        listener.bind(name(), port, null, pipeline, bootstrap).whenComplete((bound, e) -> {
            if (e != null) {
                started.completeExceptionally(e);
                return;
            }
            final String host = context.advertisedHost();
            final AccessControl access = context.accessControl();
            if (access.enabled()) {
                securityWrites = Executors.newSingleThreadExecutor(
                        new DefaultThreadFactory("junction-remoting-user-admin", true));
            }
            handler = handler(context.messaging(), config, new BrokerIdentity(config.string("broker-name"),
                    config.string("cluster-name"), (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":"
                    + bound), access, securityWrites);
            // The cluster's reply topic exists from the start, as on RocketMQ brokers, and is read for replies
            // other protocols send to RocketMQ requesters.
            replies.watch(ReplyProtocol.replyTopic(config.string("cluster-name")))
                    .whenComplete((v, x) -> started.complete(List.of(Endpoint.tcp(name(), host, bound))));
        });
        return started;
    }

    /**
     * A connection's pipeline after the connection counter (and TLS): idle timeout, flush consolidation, encoder, the
     * frame decoder capped at {@code maxFrame}, then the shared request handler. The fuzz target builds the same one on an in-VM
     * channel.
     */
    static void initPipeline(final ChannelPipeline pipeline, final int idleMillis, final int maxFrame,
                             final RemotingHandler handler) {
        pipeline.addLast("idle", new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS))
                // Responses complete on store threads, many per appender batch: one write system call for all of
                // them instead of one each.
                .addLast("flush", new FlushConsolidationHandler(FLUSH_AFTER_WRITES, true))
                .addLast("encoder", RemotingEncoder.INSTANCE)
                .addLast("decoder", new RemotingDecoder(maxFrame))
                .addLast("handler", handler);
    }

    /** The request handler of an open broker (security off). */
    RemotingHandler handler(final Messaging m, final FrontEndConfig config, final BrokerIdentity identity) {
        return handler(m, config, identity, AccessControl.open(), null);
    }

    /**
     * The request handler shared by all connections, with every processor wired to {@code m}; with {@code access}
     * enabled, every request is verified and authorized first.
     *
     * @param securityWrites runs user-directory writes; may be null when security is off
     */
    RemotingHandler handler(final Messaging m, final FrontEndConfig config, final BrokerIdentity identity,
                            final AccessControl access, final ExecutorService securityWrites) {
        final ClientChannels channels = new ClientChannels(clients);
        final FilterCache filters = new FilterCache();
        final SystemTopics systemTopics = new SystemTopics(m);
        final AtomicInteger opaques = new AtomicInteger();

        final Map<Integer, RequestProcessor> processors = new HashMap<>();
        final StaticTopics statics = new StaticTopics(m);
        final RouteProcessor route = new RouteProcessor(m, identity, statics);
        for (int code : new int[] {RequestCode.GET_ROUTEINFO_BY_TOPIC, RequestCode.GET_BROKER_CLUSTER_INFO,
            RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER}) {
            processors.put(code, route);
        }
        final ClientCalls calls = new ClientCalls(opaques);
        final PendingRequests pendingRequests = new PendingRequests(System::currentTimeMillis);
        final ReplyPush replyPush = new ReplyPush(calls, identity.address());
        replies = new ReplyRelay(m, pendingRequests, replyPush);
        final SendProcessor send = new SendProcessor(m, systemTopics,
                new RocketMqRequests(identity.clusterName(), pendingRequests, replies));
        for (int code : new int[] {RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2,
            RequestCode.SEND_BATCH_MESSAGE, RequestCode.CONSUMER_SEND_MSG_BACK}) {
            processors.put(code, send);
        }
        final ReplyProcessor reply = new ReplyProcessor(m, pendingRequests, channels, replyPush);
        processors.put(RequestCode.SEND_REPLY_MESSAGE, reply);
        processors.put(RequestCode.SEND_REPLY_MESSAGE_V2, reply);
        final PullProcessor pull = new PullProcessor(m, filters, new ForeignRequests(identity.clusterName()),
                config.intValue("max-long-poll-ms"));
        processors.put(RequestCode.PULL_MESSAGE, pull);
        processors.put(RequestCode.LITE_PULL_MESSAGE, pull);
        final OffsetProcessor offsets = new OffsetProcessor(m, channels);
        for (int code : new int[] {RequestCode.QUERY_CONSUMER_OFFSET, RequestCode.UPDATE_CONSUMER_OFFSET,
            RequestCode.GET_MAX_OFFSET, RequestCode.GET_MIN_OFFSET, RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
            RequestCode.GET_EARLIEST_MSG_STORETIME}) {
            processors.put(code, offsets);
        }
        final ClientProcessor clients = new ClientProcessor(m, channels, systemTopics, filters, identity);
        for (int code : new int[] {RequestCode.HEART_BEAT, RequestCode.UNREGISTER_CLIENT,
            RequestCode.GET_CONSUMER_LIST_BY_GROUP, RequestCode.CHECK_CLIENT_CONFIG, RequestCode.LOCK_BATCH_MQ,
            RequestCode.UNLOCK_BATCH_MQ}) {
            processors.put(code, clients);
        }
        final AdminProcessor admin = new AdminProcessor(m, identity, channels, opaques, statics);
        for (int code : new int[] {RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.DELETE_TOPIC_IN_BROKER,
            RequestCode.DELETE_TOPIC_IN_NAMESRV, RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
            RequestCode.GET_TOPIC_STATS_INFO, RequestCode.GET_CONSUME_STATS, RequestCode.GET_CONSUMER_CONNECTION_LIST,
            RequestCode.GET_BROKER_RUNTIME_INFO, RequestCode.QUERY_MESSAGE, RequestCode.VIEW_MESSAGE_BY_ID,
            AdminProcessor.INVOKE_BROKER_TO_RESET_OFFSET, AdminProcessor.GET_TOPIC_CONFIG}) {
            processors.put(code, admin);
        }
        processors.put(RequestCode.UPDATE_AND_CREATE_STATIC_TOPIC, new StaticTopicProcessor(m, identity, statics));
        final KvConfigProcessor kvConfigs = new KvConfigProcessor(m);
        for (int code : new int[] {RequestCode.PUT_KV_CONFIG, RequestCode.GET_KV_CONFIG, RequestCode.DELETE_KV_CONFIG,
            RequestCode.GET_KVLIST_BY_NAMESPACE}) {
            processors.put(code, kvConfigs);
        }
        final PopProcessor pop = new PopProcessor(m, filters, identity, config.intValue("max-long-poll-ms"),
                this.clients.popConsumers());
        for (int code : new int[] {PopProcessor.QUERY_ASSIGNMENT, PopProcessor.POP_MESSAGE, PopProcessor.ACK_MESSAGE,
            PopProcessor.CHANGE_MESSAGE_INVISIBLETIME}) {
            processors.put(code, pop);
        }
        transactions = new TransactionProcessor(m, channels, opaques);
        processors.put(RequestCode.END_TRANSACTION, transactions);
        final UserAdminProcessor userAdmin = new UserAdminProcessor(access,
                securityWrites != null ? securityWrites : Runnable::run);
        for (int code = RequestCode.AUTH_CREATE_USER; code <= RequestCode.AUTH_LIST_ACL; code++) {
            processors.put(code, userAdmin);
        }
        m.addTransactionChecker(transactions);

        m.consumers().addListener(group -> {
            for (Channel ch : channels.consumerChannels(group)) {
                ch.writeAndFlush(RemotingCommand.request(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
                        opaques.incrementAndGet(), true).put("consumerGroup", group));
            }
        });
        final AccessGuard guard = access.enabled() ? AccessGuard.of(access,
                new RequestPermissions(m, identity.clusterName(), identity.brokerName()), identity.clusterName(),
                identity.brokerName()) : null;
        return new RemotingHandler(processors, channels, calls, m, Math.max(1,
                config.intValue("max-inflight-requests")), guard, guard == null ? null : new QuotaGate(access),
                access);
    }

    @Override
    public CompletableFuture<Void> stop() {
        final CompletableFuture<Void> stopped = new CompletableFuture<>();
        if (securityWrites != null) {
            securityWrites.shutdown();
        }
        if (replies != null) {
            replies.close();
        }
        if (messaging != null && transactions != null) {
            messaging.removeTransactionChecker(transactions);
        }
        if (listener == null) {
            stopped.complete(null);
            return stopped;
        }
        return listener.close();
    }
}
