package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.BrokerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and plaintext on the same gRPC port: the 5.x client's default (TLS, trusting any certificate) works unchanged
 * against the self-signed certificate generated at start, and a plaintext client works on the same port.
 */
class GrpcTlsIT {
    @TempDir
    Path dir;

    @Test
    void shouldServeTlsAndPlaintextClientsOnTheSamePort() throws Exception {
        try (BrokerProcess broker = BrokerProcess.builder(dir.resolve("data")).start();
             GrpcClients tls = new GrpcClients(broker, true);
             GrpcClients plain = new GrpcClients(broker, false)) {
            broker.awaitHealthy(Duration.ofSeconds(60));
            final String topic = unique("grpc-tls");
            final Producer producer = tls.producer(topic);
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("over tls")).build());
            final List<MessageView> got = GrpcClients.drain(plain.simpleConsumer(unique("grpc-g"), topic), 1,
                    Duration.ofSeconds(20));
            assertThat(got).extracting(GrpcClients::body).containsExactly("over tls");

            plain.producer(topic).send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("plain")).build());
            final List<MessageView> back = GrpcClients.drain(tls.simpleConsumer(unique("grpc-g"), topic), 2,
                    Duration.ofSeconds(20));
            assertThat(back).extracting(GrpcClients::body).containsExactlyInAnyOrder("over tls", "plain");
        }
    }

    @Test
    void shouldRefusePlaintextWhenTlsIsRequired() throws Exception {
        try (BrokerProcess broker = BrokerProcess.builder(dir.resolve("data")).set("grpc.tls", "REQUIRED").start();
             GrpcClients tls = new GrpcClients(broker, true);
             GrpcClients plain = new GrpcClients(broker, false)) {
            broker.awaitHealthy(Duration.ofSeconds(60));
            final String topic = unique("grpc-tls-only");
            tls.producer(topic).send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("ok")).build());
            assertThatThrownBy(() -> plain.producer(topic)).isInstanceOf(Exception.class);
            assertThat(body(GrpcClients.drain(tls.simpleConsumer(unique("grpc-g"), topic), 1,
                    Duration.ofSeconds(20)).get(0))).isEqualTo("ok");
        }
    }
}
