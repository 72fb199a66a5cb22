package io.junction.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrivalsTest {
    private final List<String> told = new ArrayList<>();
    private final Arrivals arrivals = new Arrivals((topic, queueId) -> told.add(topic + "/" + queueId));

    @Test
    void shouldTellEachQueueOfAPassOnceAtItsEnd() {
        arrivals.add("a", 0);
        arrivals.add("a", 0);
        arrivals.add("a", 1);
        arrivals.add(new String("a"), 0); // another string of the same topic: the same queue
        arrivals.add("b", 0);
        assertThat(told).as("nothing before the pass ends").isEmpty();
        arrivals.tellAll();
        assertThat(told).containsExactly("a/0", "a/1", "b/0");
        arrivals.tellAll();
        assertThat(told).as("told once").hasSize(3);
        arrivals.add("a", 0);
        arrivals.tellAll();
        assertThat(told).as("the next pass tells again").containsExactly("a/0", "a/1", "b/0", "a/0");
    }

    @Test
    void shouldTellEarlyInALongPassOrOneTouchingManyQueues() {
        for (int i = 0; i < 1024; i++) {
            arrivals.add("a", 0);
        }
        assertThat(told).as("a long catch-up pass does not hold readers back").containsExactly("a/0");
        told.clear();
        for (int q = 0; q < 65; q++) {
            arrivals.add("t", q);
        }
        assertThat(told).as("the 65th queue makes room by telling the first 64").hasSize(64);
        arrivals.tellAll();
        assertThat(told).hasSize(65).doesNotHaveDuplicates();
    }
}
