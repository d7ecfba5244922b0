// One phase of the compat scenario (tests/compat/test_clients.py) with kafkajs:
//
//   --phase produce: send records key-F..key-(F+count-1) (values value-F...) in one
//                    producer.send with acks=-1, print one "produced" line per record.
//   --phase consume: join group --group on --topic (fromBeginning: a group without a
//                    committed offset starts at the earliest), read --count records with
//                    autoCommit off, commit them with consumer.commitOffsets, print one
//                    "consumed" line per record, and disconnect (LeaveGroup).
//
// Output: JSON lines on stdout, the last {"event":"done",...}; kafkajs' own log goes to
// stderr (KAFKAJS_LOG_LEVEL=debug for all of it). Exit status 1 with the error on stderr on
// failure or after --timeout-s.
'use strict'

const { Kafka, logLevel } = require('kafkajs')

function parseArgs(argv) {
  const args = { group: '', first: 0, timeoutS: 45 }
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--?/, '')
    const value = argv[i + 1]
    if (value === undefined) usage(`missing value of ${argv[i]}`)
    if (name === 'brokers') args.brokers = value
    else if (name === 'topic') args.topic = value
    else if (name === 'group') args.group = value
    else if (name === 'phase') args.phase = value
    else if (name === 'count') args.count = Number(value)
    else if (name === 'first') args.first = Number(value)
    else if (name === 'timeout-s') args.timeoutS = Number(value)
    else usage(`unknown option ${argv[i]}`)
  }
  if (!args.brokers || !args.topic || !(args.count > 0) || !['produce', 'consume'].includes(args.phase) ||
      (args.phase === 'consume' && !args.group)) {
    usage('--brokers, --topic, --phase produce|consume and --count are required (--group to consume)')
  }
  return args
}

function usage(message) {
  process.stderr.write(`error: ${message}\n`)
  process.exit(2)
}

function fail(message) {
  process.stderr.write(`error: ${message}\n`)
  process.exit(1)
}

const emit = value => process.stdout.write(JSON.stringify(value) + '\n')
const key = i => `key-${i}`
const value = i => `value-${i}`

// kafkajs logs through console by default, which is stdout: keep stdout for results
const toStderr = () => ({ namespace, label, log }) => {
  const { message, ...extra } = log
  process.stderr.write(`${label} [${namespace}] ${message} ${JSON.stringify(extra)}\n`)
}

async function produce(kafka, args) {
  const producer = kafka.producer({ allowAutoTopicCreation: true })
  await producer.connect()
  const messages = []
  for (let i = 0; i < args.count; i++) messages.push({ key: key(args.first + i), value: value(args.first + i) })
  const metadata = await producer.send({ topic: args.topic, acks: -1, messages })
  await producer.disconnect()
  // send() answers per partition (baseOffset of the batch), not per record: with one
  // partition, record i of the batch is at baseOffset + i
  if (metadata.length !== 1) fail(`expected one partition in the produce answer, got ${JSON.stringify(metadata)}`)
  const [{ partition, baseOffset, errorCode }] = metadata
  if (errorCode !== 0) fail(`produce error ${errorCode}`)
  messages.forEach((m, i) => emit({ event: 'produced', key: m.key, value: m.value, partition,
    offset: Number(BigInt(baseOffset) + BigInt(i)) }))
  emit({ event: 'done', phase: 'produce', count: messages.length })
}

async function consume(kafka, args) {
  // disconnect() waits for the fetch in flight, which the broker holds up to maxWaitTimeInMs
  // when there is nothing new (kafkajs' default: 5 s): a shorter wait, for a quick leave
  const consumer = kafka.consumer({ groupId: args.group, allowAutoTopicCreation: false, maxWaitTimeInMs: 250 })
  await consumer.connect()
  await consumer.subscribe({ topics: [args.topic], fromBeginning: true })
  const records = []
  let haveAll
  const gotAll = new Promise(resolve => { haveAll = resolve })
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      if (records.length >= args.count) return
      records.push({ event: 'consumed', key: message.key.toString(), value: message.value.toString(),
        partition, offset: Number(message.offset), topic })
      if (records.length === args.count) haveAll()
    },
  })
  await gotAll
  // commit each partition's last record + 1, then leave the group
  const next = new Map()
  for (const r of records) next.set(r.partition, Math.max(next.get(r.partition) || 0, r.offset + 1))
  await consumer.commitOffsets([...next].map(([partition, offset]) => (
    { topic: args.topic, partition, offset: String(offset) })))
  await consumer.disconnect()
  for (const { topic, ...r } of records) emit(r)
  emit({ event: 'done', phase: 'consume', count: records.length })
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const timer = setTimeout(() => fail(`${args.phase}: no result after ${args.timeoutS} s`), args.timeoutS * 1000)
  const kafka = new Kafka({ clientId: 'kafkajs-roundtrip', brokers: [args.brokers], logLevel: logLevel.WARN,
    logCreator: toStderr })
  if (args.phase === 'produce') await produce(kafka, args)
  else await consume(kafka, args)
  clearTimeout(timer)
}

main().catch(e => fail(e.stack || String(e)))
