// Yjs in Node for the shared-room tests and bench/bench_share.py.
//
//   node yjs_node.cjs client WS_URL ROOM   a y-websocket WebsocketProvider peer
//   node yjs_node.cjs server               y-websocket's own server on 127.0.0.1
//
// Run with NODE_PATH at the cached node_modules (tests/share/yjs_node.py).
// Every event is one JSON line on stdout.
//
// client: sends the token in $YJS_TOKEN as `Authorization: Bearer …` (ws with
// headers as the WebSocketPolyfill), prints {"event":"synced","text":…} after
// the first sync and {"event":"text","text":…,"remote":bool} on every change of
// the text "content"; reads JSON commands on stdin:
//   {"op":"insert","after":S,"text":T}  insert T after the first S
//   {"op":"close"}                      leave the room and exit
// server: prints {"event":"listening","port":N} (PORT=0 by default: a free port).
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
} else {
  process.stderr.write('usage: yjs_node.cjs client WS_URL ROOM | server\n')
  process.exit(2)
}
