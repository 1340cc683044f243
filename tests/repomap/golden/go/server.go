package main

import "net/http"

// Server serves the key-value API.
type Server struct {
	store Store
}

// NewServer builds a Server around a store.
func NewServer(store Store) *Server {
	return &Server{store: store}
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	value, ok := s.store.Get(r.URL.Query().Get("key"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write([]byte(value))
}
