import { createStore } from "./store.js";

export const counterReducer = (state = 0, action) => {
  switch (action.type) {
    case "increment":
      return state + 1;
    default:
      return state;
  }
};

export function makeCounter() {
  const store = createStore(counterReducer);
  store.subscribe(render);
  return store;
}

function render(value) {
  console.log(`count: ${value}`);
}
