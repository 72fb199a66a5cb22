package io.junction.cluster;

import io.junction.cluster.contract.TransactionCheckSender;
import io.junction.core.engine.MessageStore;
import io.junction.core.message.StoredMessage;
import io.junction.core.txn.TransactionChecker;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The leader's check-backs for the other members' producers: registered on this node's store (only a leader's store
 * checks half messages back), it hands each check to every other member's contract server, whose front-ends ask the
 * producers connected to them. A producer's answer is an ordinary {@code endTransaction} on that member, forwarded to
 * the leader; a producer connected to several nodes may answer more than once, and the first answer resolves the half
 * message. The members' contract addresses are the ones they published ({@link LeaderContracts#NAMESPACE}).
 */
final class MemberTransactionChecks implements TransactionChecker, AutoCloseable {
    private final ClusterSettings settings;
    private final Supplier<MessageStore> store;
    private final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, r -> {
        final Thread t = new Thread(r, "junction-check-backs");
        t.setDaemon(true);
        return t;
    }, NioIoHandler.newFactory());
    private final Map<String, TransactionCheckSender> senders = new ConcurrentHashMap<>();

    /** @param store this node's store of the moment, whose replicated configs hold the members' addresses */
    MemberTransactionChecks(final ClusterSettings settings, final Supplier<MessageStore> store) {
        this.settings = settings;
        this.store = store;
    }

    @Override
    public void check(final String producerGroup, final StoredMessage halfMessage, final int checkTimes) {
        final MessageStore current = store.get();
        if (current == null) {
            return;
        }
        for (ClusterMember m : settings.members()) {
            if (m.id().equals(settings.nodeId())) {
                continue;
            }
            final Optional<InetSocketAddress> address = LeaderContracts.parseAddress(
                    current.kvConfigs().get(LeaderContracts.NAMESPACE, m.id()).orElse(null));
            if (address.isEmpty()) {
                continue; // Not published yet: the member has not started; its producers are not connected either.
            }
            senders.compute(m.id(), (id, sender) -> {
                if (sender != null && sender.address().equals(address.get())) {
                    return sender;
                }
                if (sender != null) {
                    sender.close();
                }
                return new TransactionCheckSender(loops, address.get());
            }).send(producerGroup, halfMessage, checkTimes);
        }
    }

    @Override
    public void close() {
        senders.values().forEach(TransactionCheckSender::close);
        senders.clear();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
