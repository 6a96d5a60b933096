// Yjs in Node for the shared-room tests and bench/bench_share.py.
//
//   node yjs_node.cjs client WS_URL ROOM   a y-websocket WebsocketProvider peer
//   node yjs_node.cjs server               y-websocket's own server on 127.0.0.1
//   node yjs_node.cjs load WS_URL ROOM…    bench/bench_share.py's typing peers
//
// Run with NODE_PATH at the cached node_modules (tests/share/yjs_node.py).
// Every event is one JSON line on stdout.
//
// client: sends the token in $YJS_TOKEN as `Authorization: Bearer …` (ws with
// headers as the WebSocketPolyfill), prints {"event":"synced","text":…} after
// the first sync and {"event":"text","text":…,"remote":bool} on every change of
// the text "content"; reads JSON commands on stdin:
//   {"op":"insert","after":S,"text":T}  insert T after the first S
//   {"op":"presence","state":S}         set its awareness state to S
//   {"op":"close"}                      leave the room and exit
// and prints {"event":"awareness","states":[[clientID, state], …]} (the other
// clients' states) whenever the awareness changes.
// server: prints {"event":"listening","port":N} (PORT=0 by default: a free port).
// load: $PEERS peers in each ROOM (filled already, one line "pK: " per peer);
// once all have synced they type $RATE chars/s each on their own line for
// $SECONDS s, starting $BEGIN_MS ms after start; each peer records when every
// other peer's char reaches it. Prints one JSON summary (lags and slips in ms).
'use strict'

const readline = require('readline')

const say = (event) => process.stdout.write(JSON.stringify(event) + '\n')

function client (url, room) {
  const Y = require('yjs')
  const { WebsocketProvider } = require('y-websocket')
  const WebSocket = require('ws')
  const token = process.env.YJS_TOKEN || ''

  class AuthWebSocket extends WebSocket {
    constructor (address, protocols) {
      const headers = token ? { Authorization: 'Bearer ' + token } : {}
      super(address, protocols, { headers })
    }
  }

  const doc = new Y.Doc()
  const text = doc.getText('content')
  const provider = new WebsocketProvider(url, room, doc, {
    WebSocketPolyfill: AuthWebSocket,
    disableBc: true
  })
  let synced = false
  provider.on('sync', (isSynced) => {
    if (isSynced && !synced) {
      synced = true
      say({ event: 'synced', text: text.toString() })
    }
  })
  provider.on('connection-close', (event) => {
    say({ event: 'closed', code: event ? event.code : null })
  })
  provider.on('connection-error', (event) => {
    say({ event: 'error', message: String((event && event.message) || event) })
  })
  text.observe((event) => {
    say({ event: 'text', text: text.toString(), remote: !event.transaction.local })
  })
  provider.awareness.on('change', () => {
    const states = [...provider.awareness.getStates()].filter(
      ([id]) => id !== doc.clientID
    )
    say({ event: 'awareness', states })
  })

  const lines = readline.createInterface({ input: process.stdin })
  lines.on('line', (line) => {
    const command = JSON.parse(line)
    if (command.op === 'insert') {
      const current = text.toString()
      const at = current.indexOf(command.after)
      if (at < 0) {
        say({ event: 'failed', reason: 'not found: ' + command.after })
        return
      }
      text.insert(at + command.after.length, command.text)
      say({ event: 'inserted' })
    } else if (command.op === 'presence') {
      provider.awareness.setLocalState(command.state)
    } else if (command.op === 'close') {
      provider.destroy()
      process.exit(0)
    }
  })
  lines.on('close', () => {
    provider.destroy()
    process.exit(0)
  })
}

function load (url, rooms) {
  const Y = require('yjs')
  const { WebsocketProvider } = require('y-websocket')
  const WebSocket = require('ws')
  const { performance } = require('perf_hooks')
  const token = process.env.YJS_TOKEN || ''
  const peers = parseInt(process.env.PEERS || '3')
  const rate = parseFloat(process.env.RATE || '10')
  const seconds = parseFloat(process.env.SECONDS || '20')
  const drainMs = parseFloat(process.env.DRAIN_MS || '15000')
  const begin = performance.now() + parseFloat(process.env.BEGIN_MS || '5000')
  const chars = Math.round(rate * seconds)
  const expected = chars * (peers - 1)

  class AuthWebSocket extends WebSocket {
    constructor (address, protocols) {
      super(address, protocols, { headers: token ? { Authorization: 'Bearer ' + token } : {} })
    }
  }
  const lineLength = (text, k) => {
    const head = '\np' + k + ': '
    const at = text.indexOf(head) + head.length
    return text.indexOf('\n', at) - at
  }
  const all = []
  const lags = []
  const slips = []
  let complete = 0
  let finished = null
  const done = new Promise((resolve) => { finished = resolve })
  for (const room of rooms) {
    const members = []
    for (let k = 0; k < peers; k++) {
      const doc = new Y.Doc()
      const text = doc.getText('content')
      const provider = new WebsocketProvider(url, room, doc, {
        WebSocketPolyfill: AuthWebSocket, disableBc: true
      })
      const me = { k, text, provider, sent: [], seen: {}, complete: false, members }
      for (let j = 0; j < peers; j++) if (j !== k) me.seen[j] = 0
      text.observe(() => {
        const now = performance.now()
        const current = text.toString()
        if (current.indexOf('\np' + (peers - 1) + ': ') < 0) return
        for (const j of Object.keys(me.seen)) {
          const count = lineLength(current, j)
          for (let i = me.seen[j]; i < count; i++) {
            lags.push([Math.round((now - begin)) / 1000, now - members[j].sent[i]])
          }
          me.seen[j] = count
        }
        const got = Object.values(me.seen).reduce((a, b) => a + b, 0)
        if (!me.complete && got >= expected) {
          me.complete = true
          complete++
          if (complete === all.length) finished()
        }
      })
      members.push(me)
      all.push(me)
    }
  }
  const synced = Promise.all(all.map((me) => new Promise((resolve) => {
    const check = () => me.text.toString().includes('\np' + (peers - 1) + ': ')
    if (me.provider.synced && check()) return resolve()
    me.provider.on('sync', (ok) => { if (ok && check()) resolve() })
  })))
  const typeLine = (me, phase) => new Promise((resolve) => {
    let i = 0
    const next = () => {
      const due = begin + phase + (i * 1000) / rate
      setTimeout(() => {
        slips.push(performance.now() - due)
        const current = me.text.toString()
        const head = '\np' + me.k + ': '
        const at = current.indexOf('\n', current.indexOf(head) + head.length)
        me.sent.push(performance.now())
        me.text.insert(at, 'abcdefghij'[i % 10])
        i++
        if (i < chars) next(); else resolve()
      }, Math.max(0, due - performance.now()))
    }
    next()
  })
  synced.then(async () => {
    const lateReady = Math.max(0, performance.now() - begin)
    const cpu0 = process.cpuUsage()
    await Promise.all(all.map((me, j) => typeLine(me, ((j % 10) * 1000) / (10 * rate))))
    const last = performance.now()
    const timer = setTimeout(() => finished(), drainMs)
    await done
    clearTimeout(timer)
    const cpu = process.cpuUsage(cpu0)
    const arrived = all.reduce((a, me) => a + Object.values(me.seen).reduce((x, y) => x + y, 0), 0)
    const summary = JSON.stringify({
      late_ready: lateReady / 1000,
      arrived,
      expected: expected * all.length,
      lags: lags.map(([, lag]) => Math.round(lag * 100) / 100),
      lag_times: lags.map(([when]) => when),
      begin_epoch_ms: performance.timeOrigin + begin,
      slip: slips.map((s) => Math.round(s * 100) / 100),
      drain_s: complete === all.length ? (performance.now() - last) / 1000 : null,
      cpu_s: (cpu.user + cpu.system) / 1e6
    })
    for (const me of all) me.provider.destroy()
    // a large write to a pipe is flushed asynchronously: exit once it is out
    process.stdout.write(summary + '\n', () => process.exit(0))
  })
}

function server () {
  const http = require('http')
  const WebSocket = require('ws')
  const { setupWSConnection } = require('@y/websocket-server/utils')
  const wss = new WebSocket.Server({ noServer: true })
  wss.on('connection', setupWSConnection)
  const httpServer = http.createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/plain' })
    response.end('okay')
  })
  httpServer.on('upgrade', (request, socket, head) => {
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request))
  })
  httpServer.listen(parseInt(process.env.PORT || '0'), '127.0.0.1', () => {
    say({ event: 'listening', port: httpServer.address().port })
  })
  process.stdin.resume()
  process.stdin.on('end', () => process.exit(0)) // the parent went away
}

const [mode, ...args] = process.argv.slice(2)
if (mode === 'client') {
  client(args[0], args[1])
} else if (mode === 'server') {
  server()
} else if (mode === 'load') {
  load(args[0], args.slice(1))
} else {
  process.stderr.write('usage: yjs_node.cjs client WS_URL ROOM | server | load WS_URL ROOM…\n')
  process.exit(2)
}
