// The agent's chat page: posts a question to /chat, reads the Server-Sent Events as they
// stream (tokens, tool calls, tables, Vega-Lite charts) and handles the UNLINKED link flow.
'use strict'
;(() => {
  const log = document.getElementById('log')
  const form = document.getElementById('ask')
  const input = document.getElementById('message')
  const send = document.getElementById('send')
  const hint = document.getElementById('hint')

  function el (tag, cls, text) {
    const node = document.createElement(tag)
    if (cls) node.className = cls
    if (text != null) node.textContent = text
    return node
  }

  function scroll () {
    log.lastElementChild?.scrollIntoView({ block: 'end' })
  }

  function table (payload) {
    const t = el('table')
    const head = t.createTHead().insertRow()
    for (const c of payload.columns) {
      const th = el('th', null, String(c))
      th.scope = 'col'
      head.appendChild(th)
    }
    const body = t.createTBody()
    for (const row of payload.rows) {
      const tr = body.insertRow()
      for (const cell of row) {
        tr.insertCell().textContent = cell == null ? '' : typeof cell === 'object' ? JSON.stringify(cell) : String(cell)
      }
    }
    return t
  }

  function render (box, payload) {
    const holder = el('div', 'render')
    box.appendChild(holder)
    if (payload.type === 'table') holder.appendChild(table(payload))
    else if (payload.type === 'chart') {
      // vega-embed marks up its own element as a graphics document; the figure names the chart.
      holder.setAttribute('role', 'figure')
      holder.setAttribute('aria-label', payload.spec.title ? String(payload.spec.title) : 'Chart')
      const target = el('div')
      holder.appendChild(target)
      // vega-embed would take its options from the spec's usermeta: the page's own options only.
      const spec = Object.assign({}, payload.spec)
      delete spec.usermeta
      window.vegaEmbed(target, spec, { actions: false, renderer: 'svg', mode: 'vega-lite' }).catch((err) => {
        holder.textContent = `Chart failed: ${err.message}`
      })
    }
  }

  function unlinked (box, error) {
    const p = el('p')
    p.append('To answer with your data, ')
    const a = el('a', null, 'link your account')
    a.href = error.details.linkUrl
    a.target = '_blank'
    a.rel = 'noopener'
    p.append(a, ', then ask again.')
    box.appendChild(p)
  }

  async function ask (message) {
    hint.hidden = true
    const mine = el('li', 'user')
    mine.appendChild(el('span', 'text', message))
    log.appendChild(mine)
    const box = el('li', 'assistant')
    const text = el('div', 'text')
    box.appendChild(text)
    log.appendChild(box)
    scroll()
    let res
    try {
      res = await fetch('chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        credentials: 'same-origin',
        body: JSON.stringify({ message })
      })
    } catch (err) {
      box.appendChild(el('p', 'error', `The agent is unreachable: ${err.message}`))
      return
    }
    if (!res.ok) {
      const body = await res.json().catch(() => ({ error: { message: res.statusText } }))
      if (body.error?.code === 'UNLINKED') unlinked(box, body.error)
      else box.appendChild(el('p', 'error', body.error?.message ?? `Error ${res.status}`))
      scroll()
      return
    }
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    const tools = []
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let cut
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        const line = block.split('\n').find((l) => l.startsWith('data: '))
        if (line == null) continue
        const event = JSON.parse(line.slice(6))
        if (event.type === 'token') text.textContent += event.text
        else if (event.type === 'tool_call') {
          const d = el('details', 'tool')
          d.appendChild(el('summary', null, `Running ${event.name}…`))
          d.appendChild(el('pre', null, JSON.stringify(event.args, null, 2)))
          box.insertBefore(d, text)
          tools.push(d)
        } else if (event.type === 'tool_result') {
          const d = tools.shift()
          if (d) d.querySelector('summary').textContent = `${event.isError ? 'Failed' : 'Ran'} ${event.name}`
        } else if (event.type === 'render') render(box, event.payload)
        else if (event.type === 'final') text.textContent = event.text
        else if (event.type === 'done' && !event.ok) {
          box.appendChild(el('p', 'error', event.error?.message ?? 'The answer failed.'))
        }
        scroll()
      }
    }
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    const message = input.value.trim()
    if (message === '') return
    input.value = ''
    send.disabled = true
    try {
      await ask(message)
    } finally {
      send.disabled = false
      input.focus()
    }
  })
  for (const example of document.querySelectorAll('.example')) {
    example.addEventListener('click', () => {
      input.value = example.textContent
      form.requestSubmit()
    })
  }
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault()
      form.requestSubmit()
    }
  })
})()
