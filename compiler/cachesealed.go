package compiler

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/gob"
)

// A compilation with sensitive values is cached encrypted (issue 13:
// compile cache; a project with one sensitive variable was compiled
// afresh on every plan). The whole entry, desired state and all, is
// sealed with AES-256-GCM under a key derived from the compilation's key
// and a sealing key that is not in the project: Input.SealDir's (cc's is
// the user's cache directory), made and trusted as the project's cache
// key is (cacheDirKey: private, bound to its own inode). The entry's
// clear part holds only a key derived alike, so the project's .cc alone
// (a CI cache, an archive, a copy to another machine) neither decrypts
// an entry nor tells a guess at a sensitive --var value, variable file
// or CC_VAR_ value from a wrong one: each is in the compilation's key,
// and testing a guess needs the sealing key. Without Input.SealDir, or
// when its key cannot be had, such a compilation is not cached.

// sealingKey is the key Input.SealDir holds (made when missing), or nil.
func (c *compileCache) sealingKey(in Input) []byte {
	if !c.sealTried {
		c.sealTried = true
		if in.SealDir != "" {
			c.seal, _ = cacheDirKey(in.SealDir)
		}
	}
	return c.seal
}

// sealDerive is HMAC(sealing key, what ‖ the compilation's key ck).
func (c *compileCache) sealDerive(what string, ck []byte) []byte {
	m := hmac.New(sha256.New, c.seal)
	m.Write([]byte(what + "\x00"))
	m.Write(ck)
	return m.Sum(nil)
}

// sealAD binds a sealed entry to its slot and to the kind of key it was
// made under.
func (c *compileCache) sealAD(full bool) []byte {
	ad := "cc sealed compile entry 1\x00" + c.slot
	if full {
		ad += "\x00full"
	}
	return []byte(ad)
}

// sealAEAD is the cipher of the entries under ck.
func (c *compileCache) sealAEAD(ck []byte) cipher.AEAD {
	b, err := aes.NewCipher(c.sealDerive("cc sealed compile 1", ck))
	if err != nil {
		return nil
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		return nil
	}
	return a
}

// sealResult is cr encrypted: an entry holding only its Full, a key
// derived from its Key, and the sealed whole; nil when it cannot be made.
func (c *compileCache) sealResult(cr *cachedResult) *cachedResult {
	aead := c.sealAEAD(cr.Key)
	var b bytes.Buffer
	if c.seal == nil || aead == nil || gob.NewEncoder(&b).Encode(cr) != nil {
		return nil
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil
	}
	sealed := aead.Seal(nonce, nonce, b.Bytes(), c.sealAD(cr.Full))
	clear(b.Bytes())
	return &cachedResult{Key: c.sealDerive("cc sealed compile key 1", cr.Key), Full: cr.Full, Sealed: sealed}
}

// openResult replaces a sealed entry cr with what it holds, when it was
// sealed under the compilation's key (c.ck) and this sealing key.
func (c *compileCache) openResult(in Input, cr *cachedResult) bool {
	if c.sealingKey(in) == nil || !hmac.Equal(cr.Key, c.sealDerive("cc sealed compile key 1", c.ck)) {
		return false
	}
	aead := c.sealAEAD(c.ck)
	if aead == nil || len(cr.Sealed) < aead.NonceSize() {
		return false
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, cr.Sealed[:n], cr.Sealed[n:], c.sealAD(cr.Full))
	if err != nil {
		return false
	}
	defer clear(plain)
	var inner cachedResult
	if gob.NewDecoder(bytes.NewReader(plain)).Decode(&inner) != nil || inner.Sealed != nil || inner.Full != cr.Full {
		return false
	}
	*cr = inner
	return true
}
