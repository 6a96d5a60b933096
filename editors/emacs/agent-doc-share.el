;;; agent-doc-share.el --- presence in shared documents (eglot) -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, convenience

;;; Commentary:

;; Loaded by agent-doc.el.  In a shared document (the `sync' setting,
;; docs/sharing.md) the language server sends `agentDoc/shareStatus'
;; {uri, state, label, writing, presence}:
;;
;; - the label ("shared · 2 peers · agent writing") joins the mode line;
;; - each other peer's cursor is drawn: the character under it in
;;   `agent-doc-peer-cursor', its name at the end of the line in
;;   `agent-doc-peer-name'.
;;
;; Your cursor goes out as `agentDoc/cursor' {uri, position} after commands
;; that move it, at most every `agent-doc-share-cursor-interval' seconds, and
;; only for shared documents.
;;
;; Your undo skips other people's text: the buffer's undo list also holds what
;; the other peers and the agent wrote (it arrived as edits), so plain `undo'
;; would remove it.  Once shareStatus says `ownUndo', the buffer turns on
;; `agent-doc-own-undo-mode', which remaps `undo' (C-/, C-_, C-x u),
;; `undo-only' and `undo-redo' to `agent-doc-own-undo' / `agent-doc-own-redo':
;; the server undoes your last change in the room's document (your text only)
;; and brings the buffer to the result.  When the server answers that the
;; document is not shared, Emacs's own undo runs.  Turn it off with
;; `agent-doc-share-own-undo'.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'agent-doc)

(defcustom agent-doc-share-cursor-interval 0.1
  "Seconds between two `agentDoc/cursor' notifications at most."
  :type 'number
  :group 'agent-doc)

(defface agent-doc-peer-cursor '((t :inherit region))
  "Face of the character under another peer's cursor."
  :group 'agent-doc)

(defface agent-doc-peer-name '((t :inherit shadow))
  "Face of another peer's name, at the end of its cursor's line."
  :group 'agent-doc)

(defcustom agent-doc-share-own-undo t
  "Non-nil: in a shared document, undo and redo only your own changes."
  :type 'boolean
  :group 'agent-doc)

(defvar agent-doc-share--status (make-hash-table :test #'equal)
  "URI → the last `agentDoc/shareStatus' params (a plist).")

(defvar-local agent-doc-share--overlays nil
  "Overlays drawing the other peers' cursors in this buffer.")

(defvar-local agent-doc-share--last-sent nil
  "The last position sent as `agentDoc/cursor' from this buffer.")

(defvar agent-doc-share--timer nil
  "The pending trailing `agentDoc/cursor' send, or nil.")

(defun agent-doc-share-label (&optional buffer)
  "The room status of BUFFER's document (\"\" when it is not shared)."
  (with-current-buffer (or buffer (current-buffer))
    (let ((item (and buffer-file-name
                     (gethash (eglot--path-to-uri buffer-file-name)
                              agent-doc-share--status))))
      (if item (format "%s" (plist-get item :label)) ""))))

(defun agent-doc-share--draw (item)
  "Draw the other peers' cursors of ITEM (a shareStatus plist) here."
  (mapc #'delete-overlay agent-doc-share--overlays)
  (setq agent-doc-share--overlays nil)
  (when (equal (plist-get item :state) "shared")
    (save-excursion
      (save-restriction
        (widen)
        (seq-doseq (peer (or (plist-get item :presence) []))
          (let ((cursor (plist-get peer :cursor)))
            (when (and (listp cursor) (numberp (plist-get cursor :line)))
              (let* ((pos (eglot--lsp-position-to-point cursor))
                     (eol (progn (goto-char pos) (line-end-position)))
                     (name (propertize (format " %s" (plist-get peer :name))
                                       'face 'agent-doc-peer-name))
                     (mark (make-overlay pos (min (1+ pos) eol)))
                     (label (make-overlay eol eol)))
                (overlay-put mark 'face 'agent-doc-peer-cursor)
                (overlay-put label 'after-string name)
                (push mark agent-doc-share--overlays)
                (push label agent-doc-share--overlays)))))))))

(defvar agent-doc-own-undo-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map [remap undo] #'agent-doc-own-undo)
    (define-key map [remap undo-only] #'agent-doc-own-undo)
    (define-key map [remap undo-redo] #'agent-doc-own-redo)
    map)
  "Keymap of `agent-doc-own-undo-mode'.")

(define-minor-mode agent-doc-own-undo-mode
  "Undo and redo only your own changes in this shared document."
  :lighter nil
  :keymap agent-doc-own-undo-mode-map)

(defun agent-doc-share--native-undo (redo)
  "Emacs's own undo (REDO non-nil: its redo) in the current buffer."
  (if (and redo (fboundp 'undo-redo)) (undo-redo) (undo)))

(defun agent-doc-own-undo (&optional redo)
  "Undo your own last change in this shared document (REDO: redo it).
Other people's and the agent's text stays.  Falls back to `undo' when
the language server says the document is not shared."
  (interactive)
  (let ((buffer (current-buffer))
        (command (if redo "agentDoc.redo" "agentDoc.undo")))
    (if (not (eglot-current-server))
        (agent-doc-share--native-undo redo)
      ;; eglot sends changes when idle: the server must have them first
      (ignore-errors (eglot--signal-textDocument/didChange))
      (agent-doc-execute
       command (list :uri (agent-doc--uri))
       (lambda (result)
         (cond ((eq (plist-get result :shared) :json-false)
                (when (buffer-live-p buffer)
                  (with-current-buffer buffer
                    ;; not shared (any more): the keys are Emacs's again
                    (agent-doc-own-undo-mode -1)
                    (agent-doc-share--native-undo redo))))
               ((eq (plist-get result :done) :json-false)
                (message "agent-doc: nothing of yours to %s"
                         (if redo "redo" "undo")))
               ((and (plist-get result :position) (buffer-live-p buffer))
                ;; point goes where the change was, as after `undo'
                (with-current-buffer buffer
                  (let ((pos (eglot--lsp-position-to-point
                              (plist-get result :position)))
                        (window (get-buffer-window buffer)))
                    (if window (set-window-point window pos)
                      (goto-char pos)))))))))))

(defun agent-doc-own-redo ()
  "Redo your own last undone change in this shared document."
  (interactive)
  (agent-doc-own-undo t))

(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentDoc/shareStatus)) &rest params)
  "Record the room status PARAMS; draw the other peers' cursors."
  (let ((uri (plist-get params :uri)))
    (when (stringp uri)
      (puthash uri params agent-doc-share--status)
      (let ((buffer (find-buffer-visiting (eglot--uri-to-path uri))))
        (when buffer
          (with-current-buffer buffer
            (agent-doc-share--draw params)
            (agent-doc-own-undo-mode
             (if (and agent-doc-share-own-undo
                      (eq (plist-get params :ownUndo) t))
                 1 -1)))))))
  (force-mode-line-update t))

(defun agent-doc-share--send-cursor ()
  "Send this buffer's point as `agentDoc/cursor' when the document is shared."
  (when buffer-file-name
    (let* ((uri (eglot--path-to-uri buffer-file-name))
           (server (and (gethash uri agent-doc-share--status)
                        (eglot-current-server))))
      (when server
        (let ((position (eglot--pos-to-lsp-position)))
          (unless (equal position agent-doc-share--last-sent)
            (setq agent-doc-share--last-sent position)
            (jsonrpc-notify server :agentDoc/cursor
                            (list :uri uri :position position))))))))

(defun agent-doc-share--post-command ()
  "After a command: send the cursor now, then at most once per interval."
  (when (and buffer-file-name (> (hash-table-count agent-doc-share--status) 0)
             (not agent-doc-share--timer))
    (ignore-errors (agent-doc-share--send-cursor))
    (setq agent-doc-share--timer
          (run-with-timer
           agent-doc-share-cursor-interval nil
           (lambda ()
             (setq agent-doc-share--timer nil)
             (ignore-errors (agent-doc-share--send-cursor)))))))

(add-hook 'post-command-hook #'agent-doc-share--post-command)

(provide 'agent-doc-share)
;;; agent-doc-share.el ends here
