package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

/**
 * TLS on the Remoting port with the real 5.3.3 client ({@code setUseTLS(true)}; the client trusts any server
 * certificate by default, so the broker's self-signed one serves): REQUIRED refuses plaintext clients, PERMISSIVE
 * serves both kinds on the same port, as RocketMQ brokers do.
 */
class RemotingTlsIT {

    private static DefaultMQProducer producer(final RunningBroker broker, final boolean tls) throws Exception {
        final DefaultMQProducer p = new DefaultMQProducer(Names.unique("tls-pg"));
        p.setNamesrvAddr(broker.nameServer());
        p.setInstanceName(Names.unique("tls-p"));
        p.setUseTLS(tls);
        p.setSendMsgTimeout(5000);
        p.setRetryTimesWhenSendFailed(0);
        p.start();
        return p;
    }

    private static List<String> drain(final RunningBroker broker, final String topic, final int n, final boolean tls)
            throws Exception {
        final DefaultLitePullConsumer c = new DefaultLitePullConsumer(Names.unique("tls-cg"));
        c.setNamesrvAddr(broker.nameServer());
        c.setInstanceName(Names.unique("tls-c"));
        c.setUseTLS(tls);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.start();
        try {
            final List<String> got = new ArrayList<>();
            final long end = System.nanoTime() + 30_000_000_000L;
            while (got.size() < n && System.nanoTime() < end) {
                for (MessageExt m : c.poll(300)) {
                    got.add(new String(m.getBody(), StandardCharsets.UTF_8));
                }
            }
            return got;
        } finally {
            c.shutdown();
        }
    }

    @Test
    void requiredServesTlsClientsOnlyAndPermissiveServesBoth() throws Exception {
        try (RunningBroker broker = RunningBroker.start(Map.of("remoting.tls", "REQUIRED"))) {
            final DefaultMQProducer tls = producer(broker, true);
            try {
                for (int i = 0; i < 3; i++) {
                    assertThat(tls.send(new Message("tls-topic", ("t" + i).getBytes(StandardCharsets.UTF_8)))
                            .getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                }
            } finally {
                tls.shutdown();
            }
            assertThat(drain(broker, "tls-topic", 3, true)).containsExactlyInAnyOrder("t0", "t1", "t2"); // over 4 queues
            final DefaultMQProducer plain = producer(broker, false);
            try {
                assertThatThrownBy(() -> plain.send(new Message("tls-topic", "p".getBytes(StandardCharsets.UTF_8))))
                        .as("plaintext on a TLS-only port").isNotNull();
            } finally {
                // A one-off producer: no need to wait for the client's idle last step.
                RemotingClientShutdown.inBackground(plain::shutdown);
            }
        }
        try (RunningBroker broker = RunningBroker.start(Map.of("remoting.tls", "PERMISSIVE"))) {
            final DefaultMQProducer tls = producer(broker, true);
            final DefaultMQProducer plain = producer(broker, false);
            try {
                assertThat(tls.send(new Message("mixed", "over-tls".getBytes(StandardCharsets.UTF_8)))
                        .getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                assertThat(plain.send(new Message("mixed", "plain".getBytes(StandardCharsets.UTF_8)))
                        .getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            } finally {
                tls.shutdown();
                plain.shutdown();
            }
            assertThat(drain(broker, "mixed", 2, false)).containsExactlyInAnyOrder("over-tls", "plain");
        }
    }
}
