import { makeCounter } from "./counter.js";

const store = makeCounter();
store.dispatch({ type: "increment" });
store.dispatch({ type: "increment" });
