/**
 * Transactional messages: half messages parked invisibly in {@code RMQ_SYS_TRANS_HALF_TOPIC}, their resolution
 * (commit delivers the real message, rollback drops it) recorded as op records in
 * {@code RMQ_SYS_TRANS_OP_HALF_TOPIC}, check-back of unresolved ones with the producer group through a
 * {@link io.junction.core.txn.TransactionChecker}, and rebuild after a restart by replaying both topics.
 */
package io.junction.core.txn;
