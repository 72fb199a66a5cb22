package io.junction.remoting.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PopRequest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.meta.TopicConfig;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.spi.clients.PopConsumers;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PopProcessorTest {
    @TempDir
    Path dir;

    private static RemotingCommand popRequest(final long pollMillis) {
        return RemotingCommand.request(PopProcessor.POP_MESSAGE, 1, false).put("consumerGroup", "g")
                .put("topic", "t").put("maxMsgNums", 8).put("invisibleTime", 60_000L).put("pollTime", pollMillis);
    }

    @Test
    void shouldFreeALongPollingPopWhenItsAnswerIsCancelled() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            final PopConsumers popConsumers = new PopConsumers();
            final PopProcessor processor = new PopProcessor(store, new FilterCache(),
                    new BrokerIdentity("b", "c", "127.0.0.1:9876"), 20_000, popConsumers);
            final EmbeddedChannel client = new EmbeddedChannel();
            final CompletableFuture<RemotingCommand> parked = processor.process(client, popRequest(20_000));
            Thread.sleep(200); // let it park
            assertThat(parked).isNotDone();
            assertThat(popConsumers.recent("g")).singleElement()
                    .satisfies(c -> assertThat(c.protocol()).isEqualTo("remoting")); // listed for the console
            parked.cancel(false); // what the connection's handler does when the client goes away
            store.send(TestStores.text("t", "after the client left")).join();
            TestStores.awaitIndexed(store);
            Thread.sleep(200); // a parked pop would have taken it by now
            assertThat(store.inFlight()).as("nothing taken for a client that left").isZero();
            assertThat(store.pop(new PopRequest("g", "t", null, 8, 60_000, 0)).join().messages()).hasSize(1);
        }
    }
}
