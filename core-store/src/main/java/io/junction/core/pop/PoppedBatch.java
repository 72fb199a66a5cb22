package io.junction.core.pop;

import io.junction.core.PoppedMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What one pop took from one queue: how many messages (counted at once, so the pop knows how many more to look for)
 * and the messages themselves once their checkpoint is stored.
 */
record PoppedBatch(int count, CompletableFuture<List<PoppedMessage>> stored) {
}
