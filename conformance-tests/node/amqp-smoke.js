// AMQP 1.0 smoke test with rhea (run by RheaSmokeIT): node amqp-smoke.js <port>
// Sends three messages to the queue "rhea-smoke" (application properties, a string, a map and a binary body),
// receives them back from the same queue, and prints one JSON line per message received.
'use strict';
const rhea = require('rhea');

const port = parseInt(process.argv[2], 10);
const container = rhea.create_container({ id: 'rhea-smoke' });
const expected = 3;
let received = 0;

const timer = setTimeout(() => {
    console.log(JSON.stringify({ error: 'timeout', received }));
    process.exit(2);
}, 20000);

container.on('connection_open', (context) => {
    context.connection.open_receiver({ source: { address: 'rhea-smoke', capabilities: ['queue'] } });
    const sender = context.connection.open_sender({ target: { address: 'rhea-smoke', capabilities: ['queue'] } });
    sender.once('sendable', () => {
        sender.send({ message_id: 'm-1', subject: 'text', application_properties: { n: 1, colour: 'red' },
            body: 'hello from rhea' });
        sender.send({ message_id: 'm-2', subject: 'map', application_properties: { n: 2 },
            body: { a: 1, b: 'two' } });
        sender.send({ message_id: 'm-3', subject: 'bytes', application_properties: { n: 3 },
            body: rhea.message.data_section(Buffer.from([1, 2, 3])) });
    });
});

container.on('message', (context) => {
    const m = context.message;
    let body = m.body;
    if (body && body.typecode === 0x75) {
        body = Array.from(body.content);
    } else if (Buffer.isBuffer(body)) {
        body = Array.from(body);
    }
    console.log(JSON.stringify({ id: m.message_id, subject: m.subject, props: m.application_properties, body,
        deliveryCount: m.delivery_count || 0 }));
    received++;
    if (received === expected) {
        clearTimeout(timer);
        context.connection.close();
    }
});

container.on('connection_close', () => process.exit(0));
container.on('disconnected', (context) => {
    if (received < expected) {
        console.log(JSON.stringify({ error: 'disconnected: ' + String(context.error), received }));
        process.exit(4);
    }
});
container.on('error', (context) => {
    console.log(JSON.stringify({ error: String(context.error) }));
    process.exit(3);
});

container.connect({ host: '127.0.0.1', port, reconnect: false });
