package main

// Store is a key-value store.
type Store interface {
	Get(key string) (string, bool)
	Put(key, value string)
}

type memoryStore struct {
	data map[string]string
}

func newMemoryStore() *memoryStore {
	return &memoryStore{data: map[string]string{}}
}

func (m *memoryStore) Get(key string) (string, bool) {
	v, ok := m.data[key]
	return v, ok
}

func (m *memoryStore) Put(key, value string) {
	m.data[key] = value
}
