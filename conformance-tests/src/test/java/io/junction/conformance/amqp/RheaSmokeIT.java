package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.junction.conformance.support.RunningBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Node.js AMQP 1.0 client rhea (pinned in {@code node/package.json}, installed by {@code .ci/run}) against the
 * broker: {@code node/amqp-smoke.js} sends a string, a map and a binary body with application properties to a queue
 * and prints what it receives back, one JSON line per message. Skipped only when node or the installed modules are
 * missing.
 */
class RheaSmokeIT {

    @Test
    void shouldRoundTripMessagesWithRhea() throws Exception {
        final Path script = Path.of("node", "amqp-smoke.js").toAbsolutePath();
        assumeTrue(Files.isDirectory(Path.of("node", "node_modules", "rhea")), "rhea is not installed (npm ci)");
        assumeTrue(nodeAvailable(), "node is not installed");
        try (RunningBroker broker = RunningBroker.start()) {
            final Process node = new ProcessBuilder("node", script.toString(), Integer.toString(broker.amqpPort()))
                    .redirectErrorStream(true).start();
            assertThat(node.waitFor(60, TimeUnit.SECONDS)).as("node finished").isTrue();
            final String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(node.exitValue()).as(out).isZero();
            final List<String> lines = out.lines().filter(l -> l.startsWith("{")).toList();
            assertThat(lines).as(out).hasSize(3);
            assertThat(lines.get(0)).contains("\"id\":\"m-1\"", "\"subject\":\"text\"", "\"n\":1", "\"colour\":\"red\"",
                    "\"body\":\"hello from rhea\"", "\"deliveryCount\":0");
            assertThat(lines.get(1)).contains("\"id\":\"m-2\"", "\"body\":{\"a\":1,\"b\":\"two\"}");
            assertThat(lines.get(2)).contains("\"id\":\"m-3\"", "\"body\":[1,2,3]");
        }
    }

    private static boolean nodeAvailable() {
        try {
            final Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
