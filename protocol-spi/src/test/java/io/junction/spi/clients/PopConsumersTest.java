package io.junction.spi.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.junction.spi.clients.PopConsumers.PopConsumer;
import org.junit.jupiter.api.Test;

/** Recent POP consumers per group: updated in place, latest first, bounded, forgotten when silent. */
class PopConsumersTest {

    @Test
    void shouldListEachConsumerOnceWithItsLatestPopLatestFirst() {
        final PopConsumers consumers = new PopConsumers();

        consumers.popped("g", "grpc", "c1", "", 1_000);
        consumers.popped("g", "amqp", "c2", null, 2_000);
        consumers.popped("g", "grpc", "c1", "", 3_000);
        consumers.popped("other", "remoting", null, "10.0.0.1:1234", 3_000);

        assertThat(consumers.recent("g", 4_000)).extracting(PopConsumer::protocol, PopConsumer::clientId,
                PopConsumer::remote, PopConsumer::lastPop)
                .containsExactly(tuple("grpc", "c1", "", 3_000L), tuple("amqp", "c2", "", 2_000L));
        assertThat(consumers.recent("other", 4_000)).extracting(PopConsumer::remote).containsExactly("10.0.0.1:1234");
        assertThat(consumers.recent("nobody", 4_000)).isEmpty();
    }

    @Test
    void shouldKeepTheMostRecentConsumersOfAGroupOnly() {
        final PopConsumers consumers = new PopConsumers();

        for (int i = 0; i < PopConsumers.MAX_PER_GROUP + 5; i++) {
            consumers.popped("g", "grpc", "c" + i, "", 1_000 + i);
        }
        consumers.popped("g", "grpc", "c5", "", 5_000); // pops again: kept, now the latest

        assertThat(consumers.recent("g", 6_000)).hasSize(PopConsumers.MAX_PER_GROUP)
                .extracting(PopConsumer::clientId).startsWith("c5").doesNotContain("c0", "c4").contains("c6");
    }

    @Test
    void shouldForgetSilentConsumersAndMakeRoomForNewGroups() {
        final PopConsumers consumers = new PopConsumers();
        for (int i = 0; i < PopConsumers.MAX_GROUPS; i++) {
            consumers.popped("g" + i, "http", "", "h:" + i, 1_000);
        }

        consumers.popped("new", "http", "", "h:new", 2_000); // all others still recent: not listed
        assertThat(consumers.recent("new", 2_000)).isEmpty();

        final long later = 1_000 + PopConsumers.FORGET_AFTER_MILLIS + 1;
        assertThat(consumers.recent("g0", later)).isEmpty();
        consumers.popped("new", "http", "", "h:new", later);
        assertThat(consumers.recent("new", later)).extracting(PopConsumer::remote).containsExactly("h:new");
    }
}
