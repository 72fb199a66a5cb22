package io.junction.cluster.contract;

import io.junction.core.Messaging;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A request whose body has been read whole but not yet served: the call to make on the store, how to write its
 * result, and what to do with a result nobody waits for any more (null: nothing). Reading everything first means a
 * body that does not decode is refused before anything changes.
 *
 * @param unanswered takes the store and a result whose caller cancelled or left after the store had produced it: a
 *                   pop's messages must go back to their group, or they would wait out their invisible time
 */
record DecodedRequest(Function<Messaging, CompletableFuture<?>> call, BiConsumer<ByteBuf, Object> writer,
                      BiConsumer<Messaging, Object> unanswered) {
    /** The writer of an operation whose answer has no body. */
    static final BiConsumer<ByteBuf, Object> NOTHING = (out, r) -> { };

    DecodedRequest(final Function<Messaging, CompletableFuture<?>> call, final BiConsumer<ByteBuf, Object> writer) {
        this(call, writer, null);
    }
}
