package io.junction.core;

import java.util.List;

/** The messages a pop took (empty when nothing arrived within the wait). */
public record PopResult(List<PoppedMessage> messages) {
}
