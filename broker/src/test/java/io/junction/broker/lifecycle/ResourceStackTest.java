package io.junction.broker.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceStackTest {

    @Test
    void shouldCloseNewestFirstAndCarryOnPastFailures() {
        final List<String> closed = new ArrayList<>();
        final ResourceStack stack = new ResourceStack();
        stack.onClose("store", () -> closed.add("store"));
        stack.onClose("listener", () -> {
            closed.add("listener");
            throw new IllegalStateException("cannot close");
        });
        stack.push("front-end", (AutoCloseable) () -> closed.add("front-end"));

        assertThat(stack.closeAll()).isFalse();
        assertThat(closed).containsExactly("front-end", "listener", "store");

        assertThat(stack.closeAll()).isTrue(); // nothing left
        assertThat(closed).hasSize(3);
    }
}
