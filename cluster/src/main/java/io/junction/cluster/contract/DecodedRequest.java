package io.junction.cluster.contract;

import io.junction.core.Messaging;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A request whose body has been read whole but not yet served: the call to make on the store, and how to write its
 * result. Reading everything first means a body that does not decode is refused before anything changes.
 */
record DecodedRequest(Function<Messaging, CompletableFuture<?>> call, BiConsumer<ByteBuf, Object> writer) {
    /** The writer of an operation whose answer has no body. */
    static final BiConsumer<ByteBuf, Object> NOTHING = (out, r) -> { };
}
