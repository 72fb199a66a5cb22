package io.junction.cluster.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.cluster.contract.ContractServer;
import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.filter.MessageFilter;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.QueueLag;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real store behind a real {@link ContractServer}, used through a {@link ProxyNode} over real sockets: every part
 * of the contract a proxy's front-ends call, the synchronous reads answered from the mirror (changes through the proxy
 * at once, changes made elsewhere within the mirror's refresh).
 */
class ProxyMessagingTest {
    private static final int MAX_MESSAGE = 256 * 1024;
    private static final Duration SETTLE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private MessageStore store;
    private ContractServer server;
    private ProxyNode proxy;
    private Messaging messaging;

    @BeforeEach
    void start() {
        store = MessageStore.open(TestStores.small(dir).build());
        server = ContractServer.start("127.0.0.1", 0, () -> store, MAX_MESSAGE);
        proxy = ProxyNode.start(List.of("127.0.0.1:" + server.address().getPort()), MAX_MESSAGE, SETTLE);
        messaging = proxy.messaging();
    }

    @AfterEach
    void stop() {
        proxy.close();
        server.close();
        store.close();
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    private static Message message(final String body) {
        return Message.builder("orders").queueId(0).body(body.getBytes(StandardCharsets.UTF_8)).tag("a")
                .keys("k-" + body).build();
    }

    private static List<String> bodies(final List<StoredMessage> messages) {
        return messages.stream().map(m -> new String(m.bodyBytes(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void shouldReportTheLeaderItFollows() {
        assertThat(proxy.reachesLeader()).isTrue();
        final ProxyStatus status = proxy.status();
        assertThat(status.role()).isEqualTo("PROXY");
        assertThat(status.leaderContract()).isEqualTo("127.0.0.1:" + server.address().getPort());
        assertThat(status.stores()).extracting(ProxyStatus.Store::contract).contains(status.leaderContract());
    }

    @Test
    void shouldChangeMetadataOnTheStoreAndReadItBackAtOnce() throws Exception {
        final TopicConfig created = get(messaging.topics().createIfAbsent(TopicConfig.of("orders", 2)));
        assertThat(created.queueCount()).isEqualTo(2);
        assertThat(messaging.route("orders")).contains(created);
        assertThat(store.route("orders")).contains(created);
        assertThat(get(messaging.topics().createOrUpdate(TopicConfig.of("orders", 3))).queueCount()).isEqualTo(3);
        assertThat(messaging.topics().get("orders").orElseThrow().queueCount()).isEqualTo(3);

        final GroupConfig fifo = new GroupConfig("fifo-group", 5, true, false, Map.of());
        get(messaging.groups().createOrUpdate(fifo));
        assertThat(messaging.groups().get("fifo-group")).contains(fifo);
        assertThat(store.groups().get("fifo-group")).contains(fifo);
        assertThat(messaging.groups().getOrCreate("new-group").orElseThrow().name()).isEqualTo("new-group");
        await().atMost(SETTLE).until(() -> store.groups().get("new-group").isPresent());

        get(messaging.kvConfigs().put("ns", "b", "2"));
        get(messaging.kvConfigs().put("ns", "a", "1"));
        assertThat(messaging.kvConfigs().get("ns", "a")).contains("1");
        assertThat(messaging.kvConfigs().list("ns")).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
        assertThat(store.kvConfigs().get("ns", "b")).contains("2");
        assertThat(get(messaging.kvConfigs().delete("ns", "a"))).isTrue();
        assertThat(messaging.kvConfigs().get("ns", "a")).isEmpty();

        assertThat(get(messaging.topics().delete("orders"))).isTrue();
        assertThat(messaging.route("orders")).isEmpty();
        assertThat(get(messaging.groups().delete("fifo-group"))).isTrue();
        assertThat(messaging.groups().get("fifo-group")).isEmpty();
    }

    @Test
    void shouldSeeChangesMadeElsewhereWithinTheMirrorsRefresh() throws Exception {
        get(store.topics().createIfAbsent(TopicConfig.of("elsewhere", 1)));
        get(store.kvConfigs().put("ns", "k", "v"));
        store.commitOffset("g", "elsewhere", 0, 0);
        await().atMost(SETTLE).until(() -> messaging.route("elsewhere").isPresent()
                && messaging.kvConfigs().get("ns", "k").isPresent());
        get(store.topics().delete("elsewhere"));
        await().atMost(SETTLE).until(() -> messaging.route("elsewhere").isEmpty());
    }

    @Test
    void shouldSendReadQueryAndAckThroughTheProxy() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of("orders", 1)));
        final List<SendResult> sent = new ArrayList<>();
        for (String body : List.of("one", "two", "three")) {
            sent.add(get(messaging.send(message(body))));
        }
        TestStores.awaitIndexed(store);
        final PullResult pulled = get(messaging.pull(new PullRequest("g", "orders", 0, 0, 10, MessageFilter.ALL, 0)));
        assertThat(bodies(pulled.messages())).containsExactly("one", "two", "three");
        assertThat(messaging.maxOffset("orders", 0)).as("a pull's range moves the mirror at once").isEqualTo(3);
        assertThat(messaging.minOffset("orders", 0)).isZero();

        messaging.commitOffset("g", "orders", 0, 2);
        assertThat(messaging.queryOffset("g", "orders", 0)).as("read your own commit").isEqualTo(2);
        await().atMost(SETTLE).until(() -> store.queryOffset("g", "orders", 0) == 2);
        assertThat(messaging.consumers().committedTopics("g")).containsExactly("orders");

        final StoredMessage byId = get(messaging.queryById("orders", sent.get(1).uniqueId())).orElseThrow();
        assertThat(new String(byId.bodyBytes(), StandardCharsets.UTF_8)).isEqualTo("two");
        assertThat(get(messaging.lookup(sent.get(2).commitLogOffset())).map(m -> m.uniqueId()))
                .contains(sent.get(2).uniqueId());
        assertThat(bodies(get(messaging.queryByKey("orders", "k-one", 10, 0, Long.MAX_VALUE))))
                .containsExactly("one");
        assertThat(bodies(get(messaging.queryByTime("orders", 0, Long.MAX_VALUE, 10))))
                .containsExactly("one", "two", "three");
        assertThat(get(messaging.searchOffset("orders", 0, 0))).isZero();
        assertThat(get(messaging.earliestStoreTime("orders", 0))).isEqualTo(pulled.messages().get(0)
                .storeTimestamp());

        final BrowseResult browsed = get(messaging.browse(new BrowseRequest("browse-group", "orders", null, null,
                10)));
        assertThat(bodies(browsed.messages())).containsExactly("one", "two", "three");

        final PopResult popped = get(messaging.pop(new PopRequest("pop-group", "orders", MessageFilter.ALL, 10,
                60_000, 0)));
        assertThat(popped.messages()).hasSize(3);
        get(messaging.ackReceipts("pop-group", popped.messages().stream().map(p -> p.receipt()).toList()));
        final List<QueueLag> lag = get(messaging.consumers().lag("g", "orders"));
        assertThat(lag).singleElement().satisfies(l -> assertThat(l.lag()).isEqualTo(1));
        assertThat(get(messaging.statistics().runtime()).storedTotals().now()).isGreaterThanOrEqualTo(3);
        assertThat(get(messaging.consumers().resetOffsets("g", "orders", 0))).containsEntry(0, 0L);
        assertThat(messaging.queryOffset("g", "orders", 0)).isZero();
    }

    @Test
    void shouldShareConsumerMembershipThroughTheStore() throws Exception {
        final List<String> changed = new CopyOnWriteArrayList<>();
        messaging.consumers().addListener(changed::add);
        final Map<String, ConsumerClient.Subscription> subs = Map.of("orders",
                new ConsumerClient.Subscription("TAG", "*"));
        messaging.consumers().heartbeat("g", "client-1", subs, false);
        assertThat(messaging.consumers().clients("g")).extracting(ConsumerClient::clientId).containsExactly("client-1");
        assertThat(changed).containsExactly("g");
        await().atMost(SETTLE).until(() -> store.consumers().clients("g").size() == 1);
        // A client of another proxy (here: of the store itself) shows once the mirror refreshes.
        store.consumers().heartbeat("g", "client-0", subs, false);
        await().atMost(SETTLE).until(() -> messaging.consumers().clients("g").size() == 2);
        assertThat(messaging.consumers().clients("g")).extracting(ConsumerClient::clientId)
                .containsExactly("client-0", "client-1");

        get(messaging.topics().createIfAbsent(TopicConfig.of("orders", 2)));
        assertThat(messaging.consumers().lockQueues("g", "client-1", "orders", Set.of(0, 1)))
                .as("granted by the leader in the background").isEmpty();
        await().atMost(SETTLE).until(() -> messaging.consumers().lockQueues("g", "client-1", "orders",
                Set.of(0, 1)).equals(Set.of(0, 1)));
        assertThat(store.consumers().lockQueues("g", "client-0", "orders", Set.of(0, 1))).isEmpty();

        messaging.consumers().unregister("g", "client-1");
        assertThat(messaging.consumers().clients("g")).extracting(ConsumerClient::clientId)
                .containsExactly("client-0");
        await().atMost(SETTLE).until(() -> store.consumers().clients("g").size() == 1);
    }

    @Test
    void shouldFailWithUnavailableAndFindTheStoreAgainAfterItComesBack() throws Exception {
        get(messaging.topics().createIfAbsent(TopicConfig.of("orders", 1)));
        messaging.consumers().heartbeat("g", "client-1", Map.of("orders",
                new ConsumerClient.Subscription("TAG", "*")), false);
        await().atMost(SETTLE).until(() -> store.consumers().clients("g").size() == 1);
        final int port = server.address().getPort();
        server.close();
        // A leader found anew knows no clients (membership is not replicated): the proxy tells it its own at once.
        store.consumers().unregister("g", "client-1");
        assertThatThrownBy(() -> get(messaging.send(message("lost"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.UNAVAILABLE));
        await().atMost(SETTLE).until(() -> !proxy.reachesLeader());
        server = ContractServer.start("127.0.0.1", port, () -> store, MAX_MESSAGE);
        await().atMost(SETTLE).until(proxy::reachesLeader);
        assertThat(get(messaging.send(message("back"))).topic()).isEqualTo("orders");
        await().atMost(SETTLE).until(() -> store.consumers().clients("g").size() == 1);
        assertThat(store.consumers().clients("g")).extracting(ConsumerClient::clientId).containsExactly("client-1");
    }
}
