package io.junction.conformance.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.FreePorts;
import io.junction.conformance.support.RunningBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The overview's cluster panel in a real browser (headless Chromium, see {@link HeadlessChromium}). On the leader of
 * a store group of three broker processes (small heaps, election timeout 1 s): it shows this node as leader, every
 * member with its role, in sync at lag 0; then one follower is SIGKILLed, and the panel shows it unreachable, and
 * behind by the entries that CloudEvents sends committed without it, while the other follower stays in sync. On a
 * proxy over two store groups (one store each): both groups serving, a queue scaled from g1 to g2 as its two
 * segments with their logical offsets; then g2's store is SIGKILLed and its group shows no leader.
 */
@Tag("cluster")
class ConsoleClusterBrowserIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int SENDS = 5;

    private final List<RunningBroker> nodes = new ArrayList<>();
    private HeadlessChromium chromium;

    @AfterEach
    void stopAll() {
        if (chromium != null) {
            chromium.printLog();
            chromium.close();
        }
        nodes.forEach(RunningBroker::close);
    }

    @Test
    void shouldShowTheMembersAndAFollowerGoingDown() throws Exception {
        final String members = ClusterLaunch.members(3);
        final List<RunningBroker.Builder> builders = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            builders.add(RunningBroker.builder()
                    .set("cluster.node-id", "n" + i)
                    .set("cluster.members", members)
                    .set("cluster.contract-port", Integer.toString(FreePorts.next()))
                    .set("cluster.election-timeout-ms", "1000")
                    .set("store.segment-size", "16m")
                    .jvmArgs("-Xmx256m"));
        }
        ClusterLaunch.startTogether(builders, nodes);
        final RunningBroker leader = ClusterLaunch.awaitLeader(nodes, WAIT);
        final String leaderId = idOf(leader);
        final List<RunningBroker> followers = nodes.stream().filter(n -> n != leader).toList();
        final String killedId = idOf(followers.get(0));
        final String survivorId = idOf(followers.get(1));
        // Replicated writes before the kill: every member reaches the same index.
        for (int i = 0; i < SENDS; i++) {
            assertThat(cloudEvent(leader, "before-" + i)).isEqualTo(202);
        }

        chromium = HeadlessChromium.open();
        final WebDriver browser = chromium.driver();
        browser.get(leader.httpBase() + "/console#overview"); // security is off: no login
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.id("cluster-node")).getText()).isEqualTo(leaderId);
            assertThat(browser.findElement(By.id("cluster-role")).getText()).isEqualTo("leader");
            assertThat(browser.findElement(By.id("cluster-leader")).getText()).isEqualTo(leaderId);
            assertThat(browser.findElements(By.cssSelector("#cluster-members tbody tr")).stream()
                    .map(r -> r.getAttribute("data-member")).toList()).containsExactly("n1", "n2", "n3");
            assertThat(member(browser, leaderId).findElement(By.className("role")).getText()).isEqualTo("leader");
            assertThat(member(browser, leaderId).findElement(By.className("state")).getText()).isEqualTo("leader");
            for (String f : List.of(killedId, survivorId)) {
                final WebElement row = member(browser, f);
                assertThat(row.findElement(By.className("role")).getText()).isEqualTo("follower");
                assertThat(row.findElement(By.className("state")).getText()).isEqualTo("in sync");
                assertThat(row.findElement(By.className("lag")).getText()).isEqualTo("0");
                assertThat(Long.parseLong(row.findElement(By.className("match")).getText()))
                        .isEqualTo(Long.parseLong(member(browser, leaderId).findElement(By.className("match"))
                                .getText()));
            }
        });

        final long killedAt = System.nanoTime();
        followers.get(0).kill();
        // The two left are a majority: sends still commit, and the killed follower falls behind by them.
        for (int i = 0; i < SENDS; i++) {
            assertThat(cloudEvent(leader, "after-" + i)).isEqualTo(202);
        }
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            final WebElement killed = member(browser, killedId);
            assertThat(killed.getAttribute("data-state")).isEqualTo("unreachable");
            assertThat(killed.findElement(By.className("state")).getText()).isEqualTo("unreachable");
            assertThat(Long.parseLong(killed.findElement(By.className("lag")).getText()))
                    .isGreaterThanOrEqualTo(SENDS);
            assertThat(Long.parseLong(killed.findElement(By.className("last-contact")).getText()))
                    .isGreaterThan(1000);
            final WebElement survivor = member(browser, survivorId);
            assertThat(survivor.findElement(By.className("state")).getText()).isEqualTo("in sync");
            assertThat(survivor.findElement(By.className("lag")).getText()).isEqualTo("0");
            assertThat(browser.findElement(By.id("cluster-leader")).getText()).isEqualTo(leaderId);
        });
        System.out.printf("ConsoleClusterBrowserIT: the panel showed the killed follower unreachable and behind %d ms "
                + "after the kill%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));
    }

    @Test
    void shouldShowAProxysStoreGroupsAndWhereAScaledQueueLives() throws Exception {
        final List<RunningBroker> proxies = new ArrayList<>();
        ClusterLaunch.storeGroupsAndProxies(2, 1, "-Xmx160m", 1, nodes, proxies);
        final RunningBroker proxy = proxies.get(0);
        nodes.add(proxy); // closed with the stores
        assertThat(post(proxy, "/admin/topics", "{\"name\":\"panel\",\"queues\":1}").statusCode()).isEqualTo(201);
        for (int i = 0; i < 3; i++) {
            assertThat(cloudEvent(proxy, "panel", "e-" + i)).isEqualTo(202);
        }
        final HttpResponse<String> scaled = post(proxy, "/admin/topics/panel/scale?queues=1&groups=g2", "");
        assertThat(scaled.statusCode()).as(scaled.body()).isEqualTo(200);

        chromium = HeadlessChromium.open();
        final WebDriver browser = chromium.driver();
        browser.get(proxy.httpBase() + "/console#overview");
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElements(By.cssSelector("#proxy-groups tbody tr")).stream()
                    .map(r -> r.getAttribute("data-group")).toList()).containsExactly("g1", "g2");
            for (String g : List.of("g1", "g2")) {
                assertThat(group(browser, g).findElement(By.className("state")).getText()).isEqualTo("serving");
                assertThat(group(browser, g).findElement(By.className("leader")).getText()).isNotEqualTo("none");
            }
            assertThat(browser.findElement(By.id("proxy-reaches")).getText()).isEqualTo("reaches every group's leader");
            // Three messages written on g1 before the scale; writes continue on g2 from logical offset 3.
            assertThat(browser.findElement(By.cssSelector("#proxy-placements tr[data-topic='panel'][data-queue='0'] "
                    + ".segments")).getText()).matches("g1 q0 \\[0, 3\\) → g2 q\\d+ \\[3, …\\)");
        });
        assertThat(browser.findElements(By.id("cluster"))).as("no replica panel on a proxy").isEmpty();

        nodes.get(1).kill(); // g2's only store
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(group(browser, "g2").getAttribute("data-state")).isEqualTo("no leader");
            assertThat(group(browser, "g1").getAttribute("data-state")).isEqualTo("serving");
            assertThat(browser.findElement(By.id("proxy-reaches")).getText()).isEqualTo("misses a group's leader");
        });
    }

    private static WebElement group(final WebDriver browser, final String name) {
        return browser.findElement(By.cssSelector("#proxy-groups tr[data-group='" + name + "']"));
    }

    private static HttpResponse<String> post(final RunningBroker node, final String path, final String json)
            throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(node.httpBase() + path)).timeout(WAIT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static WebElement member(final WebDriver browser, final String id) {
        return browser.findElement(By.cssSelector("#cluster-members tr[data-member='" + id + "']"));
    }

    private static String idOf(final RunningBroker node) {
        return node.setting("cluster.node-id");
    }

    /** One CloudEvent (binary mode) sent to {@code node}; answers the HTTP status. */
    private static int cloudEvent(final RunningBroker node, final String id) throws Exception {
        return cloudEvent(node, "console-cluster", id);
    }

    private static int cloudEvent(final RunningBroker node, final String topic, final String id) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(node.httpBase() + "/topics/" + topic))
                .timeout(WAIT).header("ce-specversion", "1.0").header("ce-id", id)
                .header("ce-source", "/console-test").header("ce-type", "cluster.tick")
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(id))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
