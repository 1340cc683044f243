export class Store {
  constructor(reducer) {
    this.reducer = reducer;
    this.state = reducer(undefined, { type: "@init" });
    this.listeners = [];
  }

  dispatch(action) {
    this.state = this.reducer(this.state, action);
    this.listeners.forEach((listener) => listener(this.state));
  }

  subscribe(listener) {
    this.listeners.push(listener);
  }
}

export function createStore(reducer) {
  return new Store(reducer);
}
