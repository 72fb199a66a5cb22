package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Store groups added and removed at run time (real stores behind real contract servers, proxies over real sockets):
 * two proxies configured with g1 only; g2 and g3 are added through one of them, the other learns them from the
 * metadata group, scaling places segments there, removal is refused while segments there take writes and retires a
 * group whose sealed segments are still readable; a proxy started afterwards finds them all.
 */
class RuntimeGroupsTest {
    private static final Duration SETTLE = SingleReplicaGroups.SETTLE;
    private static final String TOPIC = "grown";

    @TempDir
    Path dir;

    private SingleReplicaGroups groups;
    private final List<GroupedProxy> proxies = new ArrayList<>();

    @BeforeEach
    void start() {
        groups = new SingleReplicaGroups(dir, 3);
        proxies.add(startProxy());
        proxies.add(startProxy());
    }

    private GroupedProxy startProxy() {
        return groups.proxy(List.of(group("g1", 0)));
    }

    private StoreGroup group(final String name, final int store) {
        return groups.group(name, store);
    }

    @AfterEach
    void stop() {
        groups.close();
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static Message message(final int queue, final String body) {
        return Message.builder(TOPIC).queueId(queue).body(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static GroupChangeRefused.Reason refusal(final Throwable e) {
        Throwable t = e;
        while (t != null && !(t instanceof GroupChangeRefused)) {
            t = t.getCause();
        }
        assertThat(t).as("refused as a group change").isNotNull();
        return ((GroupChangeRefused) t).reason();
    }

    @Test
    void shouldAddGroupsAtRunTimeScaleOntoThemAndRetireOnlyWhatTakesNoWrites() throws Exception {
        final GroupedProxy a = proxies.get(0);
        final GroupedProxy b = proxies.get(1);
        final GroupedMessaging viaA = (GroupedMessaging) a.messaging();
        final GroupedMessaging viaB = (GroupedMessaging) b.messaging();
        get(viaA.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        assertThat(viaA.placement(TOPIC)).as("one group: nothing placed").isNull();
        for (int i = 0; i < 3; i++) {
            get(viaA.send(message(0, "g1-" + i)));
        }

        get(a.addGroup(group("g2", 1)));
        assertThat(viaA.groupNames()).containsExactly("g1", "g2");
        await().atMost(SETTLE).until(() -> viaB.groupNames().contains("g2"));
        assertThat(refusal(catchFailure(a.addGroup(group("g2", 2))))).isEqualTo(GroupChangeRefused.Reason.DUPLICATE);
        assertThat(refusal(catchFailure(b.addGroup(group("g1", 2))))).isEqualTo(GroupChangeRefused.Reason.DUPLICATE);
        assertThat(refusal(catchFailure(a.addGroup(new StoreGroup("g9", List.of("127.0.0.1:" + freePort()))))))
                .isEqualTo(GroupChangeRefused.Reason.UNREACHABLE);
        assertThat(viaA.groupNames()).containsExactly("g1", "g2");

        // B places the topic's writes on the new group; A's sends follow the placement.
        final TopicPlacement onG2 = get(b.scale(TOPIC, 2, List.of("g2")));
        assertThat(onG2.format()).isEqualTo("g1:0:0:0:3,g2:0:3:0:-;g1:1:0:0:0,g2:1:0:0:-");
        await().atMost(SETTLE).until(() -> viaA.placement(TOPIC) != null);
        for (int i = 0; i < 3; i++) {
            assertThat(get(viaA.send(message(0, "g2-" + i))).queueOffset()).isEqualTo(3 + i);
        }
        assertThat(refusal(catchFailure(a.removeGroup("g2")))).isEqualTo(GroupChangeRefused.Reason.IN_USE);
        assertThatThrownBy(() -> get(a.removeGroup("g2"))).hasMessageContaining(TOPIC);
        assertThat(refusal(catchFailure(a.removeGroup("g1")))).isEqualTo(GroupChangeRefused.Reason.CONFIGURED);
        assertThat(refusal(catchFailure(a.removeGroup("g7")))).isEqualTo(GroupChangeRefused.Reason.UNKNOWN);

        // A third group takes the writes; the second, holding sealed segments only, is retired: read, not placed on.
        get(a.addGroup(group("g3", 2)));
        get(a.scale(TOPIC, 2, List.of("g3")));
        for (int i = 0; i < 3; i++) {
            get(viaA.send(message(0, "g3-" + i)));
        }
        final GroupUse use = get(a.removeGroup("g2"));
        assertThat(use.openIn()).isEmpty();
        assertThat(use.sealedIn()).containsExactly(TOPIC);
        assertThat(viaA.retired("g2")).isTrue();
        await().atMost(SETTLE).until(() -> viaB.retired("g2") && viaB.groupNames().contains("g3"));
        assertThatThrownBy(() -> get(viaB.scale(TOPIC, 2, List.of("g2"))))
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT))
                .hasMessageContaining("retired");
        final List<String> all = List.of("g1-0", "g1-1", "g1-2", "g2-0", "g2-1", "g2-2", "g3-0", "g3-1", "g3-2");
        await().atMost(SETTLE).until(() -> viaB.maxOffset(TOPIC, 0) == all.size());
        assertThat(readQueue0(viaB, all.size())).containsExactlyElementsOf(all);

        // A proxy started now finds the added groups (g2 retired) in the metadata group and reads across all three.
        final GroupedProxy c = startProxy();
        final GroupedMessaging viaC = (GroupedMessaging) c.messaging();
        await().atMost(SETTLE).until(() -> viaC.groupNames().containsAll(List.of("g2", "g3")) && viaC.retired("g2"));
        assertThat(c.status()).isInstanceOfSatisfying(GroupedProxyStatus.class, status -> assertThat(status.groups())
                .extracting(GroupedProxyStatus.Group::name, GroupedProxyStatus.Group::added,
                        GroupedProxyStatus.Group::retired)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("g1", false, false),
                        org.assertj.core.groups.Tuple.tuple("g2", true, true),
                        org.assertj.core.groups.Tuple.tuple("g3", true, false)));
        await().atMost(SETTLE).until(() -> viaC.maxOffset(TOPIC, 0) == all.size());
        assertThat(readQueue0(viaC, all.size())).containsExactlyElementsOf(all);
    }

    @Test
    void shouldRefuseAGroupAnotherProxyAddedBeforeItsMirrorShowsIt() throws Exception {
        final GroupedProxy a = proxies.get(0);
        final GroupedProxy b = proxies.get(1);
        get(a.addGroup(group("g2", 1)));
        // At once, well within B's mirror interval: B must ask the leader, not its snapshot.
        assertThat(refusal(catchFailure(b.addGroup(group("g2", 2))))).isEqualTo(GroupChangeRefused.Reason.DUPLICATE);
        assertThat(a.messaging().kvConfigs().get(RuntimeGroupBook.NAMESPACE, "g2")).as("the record A wrote")
                .contains(RuntimeGroupBook.FIRST_NUMBER + ";" + String.join(",", group("g2", 1).contracts()));
    }

    @Test
    void shouldForgetAnAddedGroupThatHoldsNothing() throws Exception {
        final GroupedProxy a = proxies.get(0);
        final GroupedMessaging viaB = (GroupedMessaging) proxies.get(1).messaging();
        get(a.addGroup(group("g2", 1)));
        await().atMost(SETTLE).until(() -> viaB.groupNames().contains("g2"));
        final GroupUse use = get(a.removeGroup("g2"));
        assertThat(use.openIn()).isEmpty();
        assertThat(use.sealedIn()).isEmpty();
        assertThat(((GroupedMessaging) a.messaging()).groupNames()).containsExactly("g1");
        await().atMost(SETTLE).until(() -> viaB.groupNames().equals(List.of("g1")));
        assertThat(a.status()).as("one group again: its own status").isNotInstanceOf(GroupedProxyStatus.class);
    }

    @Test
    void shouldNumberAGroupAlikeOnEveryProxyWhicheverOrderItLearnedTheGroupsIn() throws Exception {
        final GroupedProxy a = proxies.get(0);
        final GroupedMessaging viaA = (GroupedMessaging) a.messaging();
        final GroupedMessaging viaB = (GroupedMessaging) proxies.get(1).messaging();
        // Added as g3 then g2; B learns them from the record, which lists them by name (g2 first).
        get(a.addGroup(group("g3", 2)));
        get(a.addGroup(group("g2", 1)));
        assertThat(viaA.number("g3")).isEqualTo(RuntimeGroupBook.FIRST_NUMBER);
        assertThat(viaA.number("g2")).isEqualTo(RuntimeGroupBook.FIRST_NUMBER + 1);
        final GroupedProxy c = startProxy();
        final GroupedMessaging viaC = (GroupedMessaging) c.messaging();
        await().atMost(SETTLE).until(() -> viaB.groupNames().containsAll(List.of("g2", "g3"))
                && viaC.groupNames().containsAll(List.of("g2", "g3")));
        for (GroupedMessaging other : List.of(viaB, viaC)) {
            assertThat(other.number("g2")).isEqualTo(viaA.number("g2"));
            assertThat(other.number("g3")).isEqualTo(viaA.number("g3"));
        }

        // A message on g2 sent through A is found through B and C by the log offset A handed out.
        get(viaA.topics().createIfAbsent(TopicConfig.of(TOPIC, 1)));
        get(a.scale(TOPIC, 1, List.of("g2")));
        final long offset = get(viaA.send(message(0, "on-g2"))).commitLogOffset();
        for (GroupedMessaging via : List.of(viaA, viaB, viaC)) {
            assertThat(get(via.lookup(offset))).map(m -> new String(m.bodyBytes(), StandardCharsets.UTF_8))
                    .contains("on-g2");
        }

        // g3 holds nothing: removing it forgets it and gives its number back, for the next group added.
        get(a.removeGroup("g3"));
        assertThat(a.messaging().kvConfigs().get(RuntimeGroupBook.NUMBERS,
                Integer.toString(RuntimeGroupBook.FIRST_NUMBER))).isEmpty();
        get(proxies.get(1).addGroup(group("g4", 2)));
        assertThat(viaB.number("g4")).isEqualTo(RuntimeGroupBook.FIRST_NUMBER);
        await().atMost(SETTLE).until(() -> viaA.number("g4") == RuntimeGroupBook.FIRST_NUMBER
                && viaA.number("g3") == -1);
    }

    private static List<String> readQueue0(final GroupedMessaging messaging, final int count) throws Exception {
        final List<String> read = new ArrayList<>();
        long offset = 0;
        while (offset < count) {
            final PullResult r = get(messaging.pull(new PullRequest("reader", TOPIC, 0, offset, 64,
                    MessageFilter.ALL, 0)));
            for (StoredMessage m : r.messages()) {
                read.add(new String(m.bodyBytes(), StandardCharsets.UTF_8));
            }
            assertThat(r.nextOffset()).isGreaterThan(offset);
            offset = r.nextOffset();
        }
        return read;
    }

    private static Throwable catchFailure(final CompletableFuture<?> f) {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected a refusal");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
