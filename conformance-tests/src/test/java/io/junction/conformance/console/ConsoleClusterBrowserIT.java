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
 * The overview's cluster panel in a real browser (headless Chromium, see {@link HeadlessChromium}) on the leader of
 * a store group of three broker processes (small heaps, election timeout 1 s): it shows this node as leader, every
 * member with its role, in sync at lag 0; then one follower is SIGKILLed, and the panel shows it unreachable, and
 * behind by the entries that CloudEvents sends committed without it, while the other follower stays in sync.
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

    private static WebElement member(final WebDriver browser, final String id) {
        return browser.findElement(By.cssSelector("#cluster-members tr[data-member='" + id + "']"));
    }

    private static String idOf(final RunningBroker node) {
        return node.setting("cluster.node-id");
    }

    /** One CloudEvent (binary mode) sent to {@code node}; answers the HTTP status. */
    private static int cloudEvent(final RunningBroker node, final String id) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(node.httpBase() + "/topics/console-cluster"))
                .timeout(WAIT).header("ce-specversion", "1.0").header("ce-id", id)
                .header("ce-source", "/console-test").header("ce-type", "cluster.tick")
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(id))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
