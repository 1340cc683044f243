package main

import "net/http"

func main() {
	server := NewServer(newMemoryStore())
	http.HandleFunc("/get", server.handleGet)
	http.ListenAndServe(":8080", nil)
}
