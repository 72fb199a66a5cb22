package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.BrokerProcess;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Errors the 5.x Java client sees as exceptions, with auto-creation of topics off. */
class GrpcErrorsIT {
    @TempDir
    static Path dir;
    static BrokerProcess broker;
    GrpcClients clients;

    @BeforeAll
    static void start() {
        broker = BrokerProcess.builder(dir.resolve("data"))
                .set("store.auto-create-topics", "false")
                .set("grpc.auto-create-topics", "false")
                .start();
        broker.awaitHealthy(Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void clients() {
        clients = new GrpcClients(broker);
    }

    @AfterEach
    void close() {
        clients.close();
    }

    @Test
    void shouldFailASendToAMissingTopicWithTopicNotFound() throws Exception {
        final String topic = unique("grpc-missing");
        final Producer producer = clients.producer();
        assertThatThrownBy(() -> producer.send(PROVIDER.newMessageBuilder().setTopic(topic)
                .setBody(utf8("nowhere")).build()))
                .isInstanceOf(ClientException.class)
                .hasMessageContaining("40402")
                .hasMessageContaining(topic);
    }

    @Test
    void shouldFailToStartAProducerOfAMissingTopic() {
        final String topic = unique("grpc-missing");
        assertThatThrownBy(() -> clients.producer(topic)).isInstanceOf(Exception.class);
    }
}
