// Hearth's test stand-in for the part of Google's gapi.iframes that Firebase's web SDK (the app's side) and the auth
// iframe pages (the frame's side) call: the browser tests serve it as https://apis.google.com/js/api.js, since
// nothing here reaches Google. Both sides talk over postMessage with their own envelope ({hearthGapi: …}); a call
// is queued until the other side has registered a handler for its name, as gapi delivers to handlers that come later.
(function () {
  var FILTER = function () { return true; };
  var nextId = 1;

  // One end of a channel to `target` (a window): register(name, handler), send(name, data, callback).
  function Channel(target) {
    this.target = target;
    this.handlers = {};
    this.waiting = {}; // calls for names without a handler yet
    this.replies = {};
  }
  Channel.prototype.register = function (name, handler) {
    this.handlers[name] = handler;
    var queued = this.waiting[name] || [];
    delete this.waiting[name];
    for (var i = 0; i < queued.length; i++) { this.answer(queued[i]); }
  };
  Channel.prototype.send = function (name, data, callback) {
    var id = nextId++;
    if (callback) { this.replies[id] = callback; }
    this.post({kind: 'call', id: id, name: name, data: data});
  };
  Channel.prototype.post = function (message) {
    message.hearthGapi = true;
    this.target.postMessage(message, '*');
  };
  Channel.prototype.answer = function (call) {
    var handler = this.handlers[call.name];
    if (!handler) { (this.waiting[call.name] = this.waiting[call.name] || []).push(call); return; }
    var self = this;
    Promise.resolve(handler(call.data)).then(function (result) {
      self.post({kind: 'reply', id: call.id, result: [result]});
    });
  };
  Channel.prototype.receive = function (message) {
    if (message.kind === 'call') {
      if (message.name === '_ping') { return this.post({kind: 'reply', id: message.id, result: [true]}); }
      return this.answer(message);
    }
    var callback = this.replies[message.id];
    delete this.replies[message.id];
    if (callback) { callback(message.result); }
  };

  var channels = []; // [window, Channel]
  window.addEventListener('message', function (e) {
    if (!e.data || e.data.hearthGapi !== true) { return; }
    for (var i = 0; i < channels.length; i++) {
      if (channels[i][0] === e.source) { return channels[i][1].receive(e.data); }
    }
    // A frame hears from its parent before it asked for the channel: keep the calls for its handlers.
    if (e.source === window.parent && window.parent !== window) { channelTo(window.parent).receive(e.data); }
  });
  function channelTo(target) {
    for (var i = 0; i < channels.length; i++) { if (channels[i][0] === target) { return channels[i][1]; } }
    var channel = new Channel(target);
    channels.push([target, channel]);
    return channel;
  }

  // What the app's side gets from context.open: gapi.iframes.Iframe.
  function Iframe(element) {
    this.element = element;
    this.channel = channelTo(element.contentWindow);
  }
  Iframe.prototype.register = function (name, handler) { this.channel.register(name, handler); };
  Iframe.prototype.send = function (name, data, callback) { this.channel.send(name, data, callback); };
  Iframe.prototype.restyle = function () { return Promise.resolve(); };
  Iframe.prototype.ping = function (callback) {
    // The frame may still be loading: ask until its script answers.
    var channel = this.channel;
    return new Promise(function (resolve) {
      var done = false;
      function ask() {
        if (done) { return; }
        channel.send('_ping', null, function () { if (!done) { done = true; if (callback) { callback(); } resolve(); } });
        setTimeout(ask, 100);
      }
      ask();
    });
  };

  var context = {
    open: function (options, onOpen) {
      var element = document.createElement('iframe');
      var attributes = options.attributes || {};
      for (var key in attributes) {
        if (key === 'style') {
          for (var property in attributes.style) { element.style[property] = attributes.style[property]; }
        } else {
          element.setAttribute(key, attributes[key]);
        }
      }
      element.src = options.url;
      (options.where || document.body).appendChild(element);
      var iframe = new Iframe(element);
      return Promise.resolve(onOpen ? onOpen(iframe) : iframe);
    },
    // The frame's side: its channel to the page that embedded it.
    getParentIframe: function () { return channelTo(window.parent); }
  };

  window.gapi = window.gapi || {};
  window.gapi.iframes = {
    CROSS_ORIGIN_IFRAMES_FILTER: FILTER,
    Iframe: Iframe,
    getContext: function () { return context; }
  };
  window.gapi.load = function (features, options) {
    var callback = typeof options === 'function' ? options : options && options.callback;
    setTimeout(function () { if (callback) { callback(); } }, 0);
  };

  // api.js?onload=<name> calls window[name] once loaded; the emulator's frame uses gapi_onload.
  var script = document.currentScript;
  var onload = script && new URL(script.src).searchParams.get('onload');
  setTimeout(function () {
    if (onload && typeof window[onload] === 'function') { window[onload](); }
    if (typeof window.gapi_onload === 'function') { window.gapi_onload(); }
  }, 0);
})();
