/**
 * The Kafka front-end: {@link io.junction.kafka.KafkaFrontEnd} (listener), {@code KafkaConnection} (frames, request
 * order, bad input), {@code KafkaApis} (one handler per API: {@code MetadataApi}, {@code ProduceApi},
 * {@code FetchApi} with {@code FetchOperation}, {@code ListOffsetsApi}, {@code InitProducerIdApi}),
 * {@code ProducerStates} (idempotent producers), {@code TransactionCoordinator} (transactions, their state durable
 * in {@code TransactionLog} as {@code TransactionRecord}s), {@code KafkaTopics} (topic names and auto-creation) and
 * {@code KafkaMessageMapping} (the one place a Kafka record maps onto the core message). Requests, responses and record
 * batches are read and written with kafka-clients' own classes, so the wire format comes from the library; the batches
 * a Fetch returns are the exception: rendered by {@code FetchedBatch} ({@code RecordBatchDescriptor}) on the reader
 * thread that read them, tested byte for byte against kafka-clients' builder, and spliced as they are
 * ({@code RenderedRecords}) into the response frame {@code ByteBufWritable} builds.
 */
package io.junction.kafka;
