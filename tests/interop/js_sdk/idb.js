// Hearth's stand-in for the `idb` package, which @firebase/app's heartbeat store imports: the few calls it makes
// (openDB with an upgrade callback, a transaction's objectStore get/put and `done`) over the browser's IndexedDB.
function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export function openDB(name, version, { upgrade } = {}) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, version);
    open.onupgradeneeded = event => upgrade && upgrade(open.result, event.oldVersion);
    open.onsuccess = () => resolve(wrapDatabase(open.result));
    open.onerror = () => reject(open.error);
  });
}

function wrapDatabase(db) {
  return {
    transaction(storeName, mode = 'readonly') {
      const tx = db.transaction(storeName, mode);
      const done = new Promise((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error || new Error('transaction aborted'));
      });
      return {
        done,
        objectStore(name) {
          const store = tx.objectStore(name);
          return {
            get: key => request(store.get(key)),
            put: (value, key) => request(store.put(value, key))
          };
        }
      };
    }
  };
}
