/** The store as a whole: opening and recovery, the Messaging facade, reads, long polling, checkpoints, retention and its configuration. */
package io.junction.core.engine;
